package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.testkit.BroadcastCluster;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test kit's cluster fixture as a user writes it (the example of broadcast-testkit/README.md). */
@BroadcastCluster(nodes = 3)
class BroadcastClusterIT {

  @Test
  void everyNodeGetsTheObjectReadingItFromS3AboutOnce(S3Fixture s3, TestCluster cluster) {
    StoredObject object = s3.putRandom(s3.key("data.bin"), 4 << 20, 1);
    List<CompletedFetch> done = cluster.fetch(object); // every node's file checked against the object
    assertEquals(3, done.size());
    assertTrue(TestCluster.bytesFromS3(done) <= object.size() * 1.05, "read " + TestCluster.bytesFromS3(done));
  }

  @Test
  void aSingleNodeBuilderFromTheFixtureFetchesToo(S3Fixture s3, @TempDir Path dir) {
    StoredObject object = s3.putRandom(s3.key("one.bin"), 1000, 2);
    try (Broadcast broadcast = s3.broadcastBuilder().destinationDirectory(dir).build()) {
      CompletedFetch done = broadcast.fetch(FetchRequest.of(object.bucket(), object.key())).join();
      assertEquals(object.sha256(), TestCluster.sha256(done.path()));
    }
  }
}
