package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A node whose destination already holds the object (recorded by an earlier fetch) still joins a cluster
 * broadcast, so the others never wait out {@code expectTimeout} for it: with a 10-minute expectTimeout and a
 * 90-second limit on the whole fetch, a node that skipped would fail this test.
 */
@RealS3
class ClusterUnchangedIT {

  /**
   * With a static registry every listed node counts as a member; with an S3 registry only nodes that joined do,
   * so there a node that skipped would leave the others waiting for the third member.
   */
  @ParameterizedTest(name = "{0} registry")
  @ValueSource(strings = {"static", "s3"})
  void aNodeThatAlreadyHasTheObjectDoesNotHoldUpTheOthers(String registry, S3Fixture s3) {
    StoredObject object = s3.putRandom(s3.key("data.bin"), (2 << 20) + 77, 11);
    TestCluster.Builder builder =
        TestCluster.builder(s3).nodes(3).expectTimeout(Duration.ofMinutes(10)).timeout(Duration.ofSeconds(90));
    if (registry.equals("s3")) {
      builder.registry("s3://" + s3.bucket() + "/" + s3.key("registry"));
    }
    try (TestCluster cluster = builder.start()) {
      // Node 0 alone, on its own (flat tree): it has the object and its record before the cluster starts.
      CompletedFetch alone =
          cluster.node(0).fetch(r -> r.bucket(object.bucket()).key(object.key()).strategy(Strategy.FLAT_TREE)).join();
      assertEquals(object.sha256(), TestCluster.sha256(alone.path()));
      assertTrue(cluster.node(0).fetch(FetchRequest.builder().bucket(object.bucket()).key(object.key())
          .strategy(Strategy.FLAT_TREE).build()).join().unchanged(), "on its own, node 0 skips the unchanged object");

      List<CompletedFetch> done = cluster.fetch(object); // every node's file checked byte for byte
      assertEquals(3, done.size());
      for (CompletedFetch r : done) {
        assertFalse(r.unchanged(), "on a cluster every node joins: " + r);
      }
      assertTrue(TestCluster.bytesFromS3(done) <= object.size() * 1.05, "read " + TestCluster.bytesFromS3(done));

      // Again, now that every node has it: still no node waits for another.
      cluster.fetch(object);
    }
  }
}
