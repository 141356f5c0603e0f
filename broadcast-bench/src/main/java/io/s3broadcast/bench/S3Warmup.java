package io.s3broadcast.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Warms the fleet's S3 path (S3Proxy and the throttling proxy in the bench's JVM) before the first timed trial, with
 * ranged GETs of the object from the bench, untimed. Without it the first contender of a run pays for that JVM
 * compiling the server's GET path on the cores the nodes share: at N = 8, 64 MiB on the 2-core machine, a run's
 * first trial was slower than its later ones in 7 of 8 (by 0.01-0.05 T*; docs/results.md, session 43). Trial 1 runs
 * our strategies first (the order rotates by trial), so in a one-trial run that cost fell on ours, never on a
 * baseline. The proxy counts these bytes under the bench's address, not a node's, so no trial counts them.
 */
final class S3Warmup {

    private static final Logger LOG = LoggerFactory.getLogger(S3Warmup.class);

    /** How many GETs: enough for the server's per-request path to be compiled, as about 100 phase-1 GETs do. */
    static final int REQUESTS = 256;
    /** GETs at once. */
    static final int PARALLEL = 16;
    /** Bytes per GET at most (each GET is paced at the profile's per-request rate, so small ones keep it short). */
    static final long RANGE = 256 * 1024;

    private S3Warmup() {
    }

    /**
     * The ranges to read of an object of {@code size} bytes: {@code requests} ranges of at most {@code range}, in turn
     * over it.
     */
    static List<long[]> ranges(long size, int requests, long range) {
        List<long[]> out = new ArrayList<>();
        if (size <= 0) {
            return out;
        }
        long length = Math.min(range, size);
        long slots = Math.max(1, size / length);
        for (int i = 0; i < requests; i++) {
            long first = (i % slots) * length;
            out.add(new long[] {first, Math.min(size, first + length) - 1});
        }
        return out;
    }

    /**
     * Reads the ranges of {@code key} through {@code endpoint}, {@link #PARALLEL} at a time; returns what it read, for
     * the run's header (or why it did not: warming failed, which the trials will show if it matters).
     */
    static String run(Endpoint endpoint, String bucket, String key, long size) throws InterruptedException {
        long started = System.nanoTime();
        List<long[]> ranges = ranges(size, REQUESTS, RANGE);
        Semaphore slots = new Semaphore(PARALLEL);
        List<CompletableFuture<?>> gets = new ArrayList<>();
        try (S3AsyncClient client = endpoint.nettyClient(PARALLEL).build()) {
            for (long[] r : ranges) {
                slots.acquire();
                CompletableFuture<?> get = client.getObject(
                        b -> b.bucket(bucket).key(key).range("bytes=" + r[0] + "-" + r[1]),
                        AsyncResponseTransformer.toBytes());
                gets.add(get.whenComplete((v, e) -> slots.release()));
            }
            CompletableFuture.allOf(gets.toArray(CompletableFuture[]::new)).join();
        } catch (RuntimeException e) {
            // Only warming: the trials read the object themselves and fail properly if the server does.
            LOG.warn("warming the S3 server failed ({}); the first trial may pay for its start", e.toString());
            return "failed (" + e + ")";
        }
        long bytes = ranges.stream().mapToLong(r -> r[1] - r[0] + 1).sum();
        return String.format(Locale.ROOT, "%d ranged GETs, %s, in %.1f s, untimed", ranges.size(),
                ByteSize.format(bytes), (System.nanoTime() - started) / 1e9);
    }
}
