package io.s3broadcast.p2p.cluster;

import java.util.ArrayDeque;

/**
 * A growing count's rate over a sliding window of fixed length, and the highest such rate seen: fed the count's
 * total at each tick of the caller's clock. Not thread-safe.
 */
final class SlidingRate {

    private final long windowNanos;
    /** Samples of (time, total), oldest first; the first is the newest one a window or more ago. */
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();
    private double last = -1;
    private double peak;

    /** @param windowNanos the window's length */
    SlidingRate(long windowNanos) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("window must be positive, was " + windowNanos + " ns");
        }
        this.windowNanos = windowNanos;
    }

    /** The count was {@code total} at {@code now} (nanos; neither goes back). */
    void add(long now, long total) {
        samples.addLast(new long[] {now, total});
        while (samples.size() > 2 && now - secondOldest()[0] >= windowNanos) {
            samples.pollFirst();
        }
        long[] first = samples.peekFirst();
        long elapsed = now - first[0];
        if (elapsed >= windowNanos) {
            last = (total - first[1]) * 1e9 / elapsed;
            peak = Math.max(peak, last);
        }
    }

    /** Per second over the last window, or a negative value before a whole window has passed. */
    double rate() {
        return last;
    }

    /** The highest {@link #rate()} so far, per second (0 before a window has passed). */
    double peak() {
        return peak;
    }

    private long[] secondOldest() {
        var it = samples.iterator();
        it.next();
        return it.next();
    }
}
