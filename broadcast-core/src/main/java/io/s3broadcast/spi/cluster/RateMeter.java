package io.s3broadcast.spi.cluster;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.Arrays;

/**
 * Bytes per second over a sliding window on an injected clock: the window is cut into buckets, bytes are
 * added to the bucket of the current time, and the rate is the bytes of the buckets still in the window
 * divided by the time they cover (less than the window while the meter is younger than it). Not
 * thread-safe: its owner guards it.
 */
final class RateMeter {

    static final int DEFAULT_BUCKETS = 20;

    private final Ticker ticker;
    private final long origin;
    private final long bucketNanos;
    private final long[] bytes;
    /** The bucket number each slot holds, or {@code Long.MIN_VALUE}. */
    private final long[] bucket;
    private long total;

    RateMeter(Ticker ticker, Duration window) {
        this(ticker, window, DEFAULT_BUCKETS);
    }

    RateMeter(Ticker ticker, Duration window, int buckets) {
        if (buckets <= 0) {
            throw new IllegalArgumentException("buckets must be > 0, was " + buckets);
        }
        long windowNanos = window.toNanos();
        if (windowNanos < buckets) {
            throw new IllegalArgumentException("window " + window + " is shorter than " + buckets + " ns");
        }
        this.ticker = ticker;
        this.origin = ticker.read();
        this.bucketNanos = windowNanos / buckets;
        this.bytes = new long[buckets];
        this.bucket = new long[buckets];
        Arrays.fill(bucket, Long.MIN_VALUE);
    }

    void record(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, was " + n);
        }
        long b = bucketAt(ticker.read());
        int slot = (int) Math.floorMod(b, (long) bytes.length);
        if (bucket[slot] != b) {
            bucket[slot] = b;
            bytes[slot] = 0;
        }
        bytes[slot] += n;
        total += n;
    }

    /** Bytes per second over the window ending now; 0 before any time has passed. */
    double bytesPerSecond() {
        long now = ticker.read();
        long current = bucketAt(now);
        long oldest = current - bytes.length + 1;
        long sum = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bucket[i] >= oldest && bucket[i] <= current) {
                sum += bytes[i];
            }
        }
        long start = Math.max(origin, origin + oldest * bucketNanos);
        long span = now - start;
        return span <= 0 ? 0 : sum * 1e9 / span;
    }

    /** Bytes recorded since the meter was made. */
    long total() {
        return total;
    }

    private long bucketAt(long now) {
        return Math.floorDiv(now - origin, bucketNanos);
    }
}
