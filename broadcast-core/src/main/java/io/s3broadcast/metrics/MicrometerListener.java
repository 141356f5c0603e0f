package io.s3broadcast.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchListener;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records fetches in a {@link MeterRegistry}: bytes and active peers as they happen, timers and the other counters
 * from each fetch's result; see {@link BroadcastMetrics} for the meters.
 */
final class MicrometerListener implements FetchListener {

    /** Active peers per registry, shared by every listener on it (a gauge is registered once per registry). */
    private static final Map<MeterRegistry, AtomicInteger> ACTIVE_PEERS =
            Collections.synchronizedMap(new WeakHashMap<>());

    private final MeterRegistry registry;
    private final Counter fromS3;
    private final Counter fromPeers;
    private final AtomicInteger activePeers;

    MicrometerListener(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.fromS3 = Counter.builder("s3broadcast.fetch.bytes").description("bytes received, as they arrive")
                .baseUnit("bytes").tag("source", "s3").register(registry);
        this.fromPeers = Counter.builder("s3broadcast.fetch.bytes").description("bytes received, as they arrive")
                .baseUnit("bytes").tag("source", "peers").register(registry);
        this.activePeers = ACTIVE_PEERS.computeIfAbsent(registry, r -> {
            AtomicInteger n = new AtomicInteger();
            Gauge.builder("s3broadcast.peers.active", n, AtomicInteger::get)
                    .description("peer connections exchanging pieces for fetches under way or lingering")
                    .strongReference(true).register(r);
            return n;
        });
    }

    @Override
    public void bytesFromS3(long bytes) {
        fromS3.increment(bytes);
    }

    @Override
    public void bytesFromPeers(long bytes) {
        fromPeers.increment(bytes);
    }

    @Override
    public void peerConnected(String nodeId) {
        activePeers.incrementAndGet();
    }

    @Override
    public void peerDisconnected(String nodeId) {
        activePeers.decrementAndGet();
    }

    /** On Micrometer's global registry; only called once Micrometer is known to be on the class path. */
    static FetchListener global() {
        return new MicrometerListener(Metrics.globalRegistry);
    }

    @Override
    public void fetchComplete(CompletedFetch r) {
        String strategy = r.strategy().name().toLowerCase(java.util.Locale.ROOT);
        Timer.builder("s3broadcast.fetch").description("wall time of a fetch")
                .tags("strategy", strategy, "outcome", r.unchanged() ? "unchanged" : "fetched")
                .register(registry).record(r.duration());
        if (r.unchanged()) {
            return;
        }
        Timer.builder("s3broadcast.fetch.phase").description("time in phase 1 (own share from S3) and 2 (from peers)")
                .tags("strategy", strategy, "phase", "1").register(registry).record(r.phase1());
        Timer.builder("s3broadcast.fetch.phase").description("time in phase 1 (own share from S3) and 2 (from peers)")
                .tags("strategy", strategy, "phase", "2").register(registry).record(r.phase2());
        counter("s3broadcast.fetch.pieces.stolen", "pieces fetched in works taken from other nodes", strategy)
                .increment(r.piecesStolen());
        counter("s3broadcast.fetch.pieces.repaired", "pieces from peers read again from S3", strategy)
                .increment(r.piecesRepaired());
        counter("s3broadcast.fetch.peers.banned", "peers banned for a wrong piece or digest", strategy)
                .increment(r.bannedPeers().size());
    }

    @Override
    public void fetchFailed(Throwable cause) {
        String kind = cause instanceof BroadcastException ? cause.getClass().getSimpleName() : "other";
        Counter.builder("s3broadcast.fetch.failures").description("fetches that failed, by kind")
                .tag("kind", kind).register(registry).increment();
    }

    private Counter counter(String name, String description, String strategy, String... tags) {
        return Counter.builder(name).description(description).tag("strategy", strategy).tags(tags).register(registry);
    }
}
