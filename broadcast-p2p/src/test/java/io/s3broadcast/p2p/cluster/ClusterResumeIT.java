package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import io.s3broadcast.testkit.proxy.Fault;
import io.s3broadcast.testkit.proxy.FaultProxy;
import io.s3broadcast.testkit.proxy.Rule;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A node that stopped part way through (here: its own fetch of the object failed after the first pieces) joins
 * a cluster broadcast of the same object to the same destination with those pieces: it does not read them from
 * S3 again, announces them like any, and every node ends byte-exact.
 */
@RealS3
class ClusterResumeIT {

  private static final int MIB = 1 << 20;

  @Test
  void aNodeWithPiecesOfAnInterruptedFetchResumesInTheCluster(S3Fixture s3) throws IOException {
    long size = 12L * MIB + 99;
    long failsFrom = 6L * MIB;
    StoredObject object = s3.putRandom(s3.key("cluster-resume.bin"), size, 21);
    try (TestCluster cluster = TestCluster.builder(s3).nodes(3).timeout(Duration.ofSeconds(120)).start()) {
      Path dir = cluster.directory(0);
      FaultProxy proxy =
          s3.closeAfterTest(FaultProxy.start(new InetSocketAddress("127.0.0.1", s3.endpoint().getPort())));
      proxy.add(Rule.forGets().range(r -> start(r) >= failsFrom).always().inject(Fault.slowDown()));
      try (Broadcast alone = s3.broadcastBuilder().endpoint(proxy.endpoint()).destinationDirectory(dir)
          .strategy(Strategy.FLAT_TREE).connections(1).rangeSize(MIB).maxAttempts(1).build()) {
        FetchHandle h = alone.fetch(FetchRequest.of(object.bucket(), object.key()));
        assertThrows(CompletionException.class, h::join);
      }
      assertEquals(2, names(dir).size(), "the part file and journal stay: " + names(dir));

      List<CompletedFetch> done = cluster.fetch(object); // every node's file checked byte for byte
      assertTrue(done.get(0).bytesFromS3() <= size - failsFrom,
          "node 0 read " + done.get(0).bytesFromS3() + " bytes from S3, holding " + failsFrom + " already");
      assertEquals(List.of("cluster-resume.bin"), names(dir));
    }
  }

  private static long start(String range) {
    return Long.parseLong(range.substring("bytes=".length(), range.indexOf('-')));
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".s3broadcast")).sorted().toList();
    }
  }
}
