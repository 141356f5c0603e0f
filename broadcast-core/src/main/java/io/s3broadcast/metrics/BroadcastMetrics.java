package io.s3broadcast.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.s3broadcast.FetchListener;
import java.util.Optional;

/**
 * Micrometer meters for fetches (Micrometer is an optional dependency: add {@code io.micrometer:micrometer-core}).
 * A {@link io.s3broadcast.Broadcast} binds them to Micrometer's global registry by itself when Micrometer is on the
 * class path (unless {@code metrics(false)} or {@code s3broadcast.metrics=false}); for another registry add
 * {@code listener(registry)} with {@code Broadcast.Builder.addListener}.
 *
 * <p>Meters recorded live, as the fetch goes:
 * <ul>
 *   <li>{@code s3broadcast.fetch.bytes} (counter, base unit bytes, tag {@code source} = {@code s3} or {@code peers}):
 *       bytes from S3 as they arrive (retried reads included), bytes from peers as each checked piece is stored;</li>
 *   <li>{@code s3broadcast.peers.active} (gauge): peer connections exchanging pieces for fetches under way or
 *       lingering to serve peers, over every broadcast recording in the registry.</li>
 * </ul>
 *
 * <p>Meters recorded when a fetch ends (tag {@code strategy}; on the timer also {@code outcome}:
 * {@code fetched} or {@code unchanged}):
 * <ul>
 *   <li>{@code s3broadcast.fetch} (timer): wall time of each fetch;</li>
 *   <li>{@code s3broadcast.fetch.phase} (timer, tag {@code phase} = {@code 1} or {@code 2}): time in phase 1 (this
 *       node's share from S3) and phase 2 (the rest, from peers);</li>
 *   <li>{@code s3broadcast.fetch.pieces.stolen} and {@code s3broadcast.fetch.pieces.repaired} (counters);</li>
 *   <li>{@code s3broadcast.fetch.peers.banned} (counter);</li>
 *   <li>{@code s3broadcast.fetch.failures} (counter, tag {@code kind}: the {@code BroadcastException} subclass,
 *       e.g. {@code ObjectNotFound}).</li>
 * </ul>
 */
public final class BroadcastMetrics {

    private static final String MICROMETER = "io.micrometer.core.instrument.Metrics";

    private BroadcastMetrics() {
    }

    /** A listener recording every fetch it hears in {@code registry}. */
    public static FetchListener listener(MeterRegistry registry) {
        return new MicrometerListener(registry);
    }

    /**
     * The listener on Micrometer's global registry, when Micrometer is on the class path; empty otherwise. Only
     * this method may be called without Micrometer present.
     */
    public static Optional<FetchListener> globalIfPresent() {
        try {
            Class.forName(MICROMETER, false, BroadcastMetrics.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.empty();
        }
        // In another class: verifying this one must not need Micrometer's classes.
        return Optional.of(MicrometerListener.global());
    }
}
