package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchListener;
import io.s3broadcast.metrics.BroadcastMetrics;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The Micrometer binding on a real 3-node cluster: bytes from S3 and from peers are counted as they arrive, and
 * the active-peers gauge counts connections while the fetch runs and is back to zero once the nodes are closed.
 */
@RealS3
class ClusterMetricsIT {

  @Test
  void bytesAndActivePeersAreRecordedLive(S3Fixture s3) {
    StoredObject object = s3.putRandom(s3.key("metered.bin"), (3 << 20) + 5, 17);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicInteger peersSeenDuringTheFetch = new AtomicInteger();
    AtomicLong peerBytesSeenLive = new AtomicLong();
    FetchListener sampler =
        new FetchListener() {
          @Override
          public void bytesFromPeers(long bytes) { // told after the meters' listener, while the fetch runs
            double active = registry.get("s3broadcast.peers.active").gauge().value();
            peersSeenDuringTheFetch.accumulateAndGet((int) active, Math::max);
            peerBytesSeenLive.set(
                (long) registry.get("s3broadcast.fetch.bytes").tag("source", "peers").counter().count());
          }
        };
    List<CompletedFetch> done;
    try (TestCluster cluster =
        TestCluster.builder(s3)
            .nodes(3)
            .configure(
                (i, b) -> {
                  b.metrics(false).addListener(BroadcastMetrics.listener(registry));
                  b.pieceSize(64 << 10);
                  if (i == 0) {
                    b.addListener(sampler);
                  }
                })
            .start()) {
      done = cluster.fetch(object);
      assertTrue(peersSeenDuringTheFetch.get() >= 1, "active peers while pieces came from peers");
      assertTrue(peerBytesSeenLive.get() > 0, "bytes from peers counted before the fetch ended");
    }
    long fromS3 = TestCluster.bytesFromS3(done);
    long fromPeers = done.stream().mapToLong(CompletedFetch::bytesFromPeers).sum();
    assertTrue(fromPeers > 0, "a cluster exchanges pieces: " + done);
    assertEquals(
        fromPeers, (long) registry.get("s3broadcast.fetch.bytes").tag("source", "peers").counter().count());
    assertTrue(registry.get("s3broadcast.fetch.bytes").tag("source", "s3").counter().count() >= fromS3);
    assertEquals(0.0, registry.get("s3broadcast.peers.active").gauge().value(), "no peer left once closed");
    assertEquals(3, registry.get("s3broadcast.fetch").timer().count());
  }
}
