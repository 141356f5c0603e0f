package io.s3broadcast.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchListener;
import io.s3broadcast.Strategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BroadcastMetricsTest {

    private static CompletedFetch.Builder result() {
        return CompletedFetch.builder().path(Path.of("/tmp/x")).bucket("b").key("k").eTag("\"e\"").size(1000)
                .strategy(Strategy.STEAL).duration(Duration.ofSeconds(3)).phase1(Duration.ofSeconds(2))
                .phase2(Duration.ofSeconds(1)).bytesFromS3(400).bytesFromPeers(600).piecesStolen(5).piecesRepaired(1)
                .bannedPeers(List.of("liar"));
    }

    @Test
    void bytesAndActivePeersAreRecordedAsTheyHappen() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        FetchListener listener = BroadcastMetrics.listener(registry);
        FetchListener another = BroadcastMetrics.listener(registry); // a second broadcast on the same registry
        listener.bytesFromS3(1000);
        another.bytesFromS3(24);
        listener.bytesFromPeers(4096);
        assertThat(registry.get("s3broadcast.fetch.bytes").tag("source", "s3").counter().count()).isEqualTo(1024);
        assertThat(registry.get("s3broadcast.fetch.bytes").tag("source", "peers").counter().count()).isEqualTo(4096);

        listener.peerConnected("a");
        listener.peerConnected("b");
        another.peerConnected("a");
        assertThat(registry.get("s3broadcast.peers.active").gauge().value()).isEqualTo(3);
        listener.peerDisconnected("a");
        another.peerDisconnected("a");
        assertThat(registry.get("s3broadcast.peers.active").gauge().value()).isEqualTo(1);
        listener.peerDisconnected("b");
        assertThat(registry.get("s3broadcast.peers.active").gauge().value()).isZero();

        listener.fetchComplete(result().build()); // the result's byte counts are not added again
        assertThat(registry.get("s3broadcast.fetch.bytes").tag("source", "s3").counter().count()).isEqualTo(1024);
    }

    @Test
    void aCompletedFetchIsCountedByStrategy() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        FetchListener listener = BroadcastMetrics.listener(registry);
        listener.fetchComplete(result().build());
        listener.fetchComplete(result().unchanged(true).bytesFromS3(0).bytesFromPeers(0).build());
        listener.fetchFailed(new BroadcastException.ObjectNotFound("gone", null));

        assertThat(registry.get("s3broadcast.fetch.pieces.stolen").counter().count()).isEqualTo(5);
        assertThat(registry.get("s3broadcast.fetch.pieces.repaired").counter().count()).isEqualTo(1);
        assertThat(registry.get("s3broadcast.fetch.peers.banned").counter().count()).isEqualTo(1);
        assertThat(registry.get("s3broadcast.fetch").tag("outcome", "fetched").timer().count()).isEqualTo(1);
        assertThat(registry.get("s3broadcast.fetch").tag("outcome", "unchanged").timer().count()).isEqualTo(1);
        assertThat(registry.get("s3broadcast.fetch.phase").tag("phase", "1").timer().totalTime(
                java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(registry.get("s3broadcast.fetch.failures").tag("kind", "ObjectNotFound").counter().count())
                .isEqualTo(1);
    }

    @Test
    void theGlobalBindingIsThereWhenMicrometerIs() {
        assertThat(BroadcastMetrics.globalIfPresent()).isPresent();
    }
}
