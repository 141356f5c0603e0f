package io.s3broadcast.testkit;

import io.s3broadcast.Strategy;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives each test a {@link TestCluster} parameter: {@link #nodes()} in-process nodes on the test's S3
 * server (the one of {@link RealS3}, which this annotation implies), started before the test and closed
 * after it.
 *
 * <pre>{@code
 * @BroadcastCluster(nodes = 3)
 * class ClusterIT {
 *   @Test
 *   void everyNodeGetsTheObject(S3Fixture s3, TestCluster cluster) {
 *     StoredObject object = s3.putRandom(s3.key("data.bin"), 8 << 20, 1);
 *     List<CompletedFetch> done = cluster.fetch(object);   // every node's file checked against it
 *     assertTrue(TestCluster.bytesFromS3(done) < object.size() * 1.05);
 *   }
 * }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@RealS3
@ExtendWith(BroadcastClusterExtension.class)
public @interface BroadcastCluster {

  /** How many nodes. */
  int nodes() default 3;

  /** Every node's strategy; default the library's with a registry (overlap). */
  Strategy strategy() default Strategy.OVERLAP;

  /** Bytes per piece; 0 (default) for the library's default. Small objects exchange more with small pieces. */
  int pieceSize() default 0;
}
