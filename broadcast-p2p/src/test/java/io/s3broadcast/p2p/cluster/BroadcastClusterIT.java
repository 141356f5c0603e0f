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
  void aWholePrefixOnEveryNode(S3Fixture s3, TestCluster cluster) {
    StoredObject first = s3.putRandom(s3.key("ds/part-0"), 2 << 20, 3);
    StoredObject second = s3.putRandom(s3.key("ds/part-1"), 3 << 20, 4);
    List<io.s3broadcast.FetchAllHandle> runs = new java.util.ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      runs.add(cluster.node(i).fetchAll(s3.bucket(), s3.key("ds/"), cluster.directory(i).resolve("ds")));
    }
    long fromS3 = 0;
    for (int i = 0; i < cluster.size(); i++) {
      List<CompletedFetch> done = runs.get(i).join();
      assertEquals(first.sha256(), TestCluster.sha256(done.get(0).path()));
      assertEquals(second.sha256(), TestCluster.sha256(done.get(1).path()));
      fromS3 += TestCluster.bytesFromS3(done);
    }
    assertTrue(fromS3 <= (first.size() + second.size()) * 1.05, "read " + fromS3);
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
