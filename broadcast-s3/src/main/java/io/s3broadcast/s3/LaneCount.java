package io.s3broadcast.s3;

import io.s3broadcast.spi.ConnectionTuning;

/**
 * How many lanes (ranged GETs at once) a fetch runs. The count wanted is its {@link ConnectionTuning.Tuner}'s,
 * within {@code [1, maxLanes]}: every tick the tuner is told the fetch's rate since the last one, and a 503
 * SlowDown at once (once per {@link ConnectionTuning#interval()}). The lanes running follow the count: a tick takes
 * those to start, a lane over it stops after its read, and the fetch ends with the last lane. The last rate and
 * the best so far also tell whether the link is busy, for hedging.
 *
 * <p>Threads: any (lanes on the client's threads, ticks on the scheduler's); all state is under this object's
 * lock, and the tuner is called under it, so on one thread at a time as it expects.
 */
final class LaneCount {

    /** What a tick decided: {@code add} lanes to start, and whether one more was taken to hedge a tail. */
    record Tick(int add, boolean hedgeLane) {
        static final Tick NONE = new Tick(0, false);
    }

    private final ConnectionTuning tuning;
    private final ConnectionTuning.Tuner tuner;
    private final int maxLanes;
    private final boolean hedge;
    // guarded by this
    private int lanes;
    private int target;
    private long lastBytes;
    /** The last interval's rate and the highest so far (bytes/s), to tell a busy link from an idle one. */
    private double lastRate;
    private double peakRate;
    private long lastTickNanos;
    /** When the tuner was last told of a throttle, if it was. */
    private boolean throttledBefore;
    private long lastThrottleNanos;

    /**
     * @param initial the count to start with
     * @param maxLanes the most lanes the tuner may ask for
     * @param hedge whether a tick may take a lane to hedge a tail
     */
    LaneCount(ConnectionTuning tuning, int initial, int maxLanes, boolean hedge) {
        this.tuning = tuning;
        this.tuner = tuning.start(initial, maxLanes);
        this.maxLanes = maxLanes;
        this.hedge = hedge;
        this.target = initial;
    }

    /** The fetch starts its lanes at {@code now} (ticker nanos): returns how many, the count so far. */
    synchronized int start(long now) {
        lanes = target;
        lastTickNanos = now;
        return lanes;
    }

    /**
     * Tells the tuner the rate since the last tick ({@code bytes} read in all by {@code now}) and takes the lanes to
     * start up to its count; nothing when no time passed.
     */
    synchronized Tick tick(long now, long bytes) {
        double seconds = seconds(now - lastTickNanos);
        if (seconds <= 0) {
            return Tick.NONE;
        }
        double rate = (bytes - lastBytes) / seconds;
        lastBytes = bytes;
        lastRate = rate;
        peakRate = Math.max(peakRate, rate);
        lastTickNanos = now;
        target = Math.max(1, Math.min(maxLanes, tuner.measured(rate)));
        int add = lanes == 0 ? 0 : Math.max(0, target - lanes);
        lanes += add;
        // A read may have slowed after the other lanes stopped for want of runs: look for a tail to hedge
        // (not while lanes are over the count, as after a SlowDown: they are to stop, not to multiply).
        boolean hedgeLane = add == 0 && hedge && lanes > 0 && lanes < maxLanes && lanes <= target;
        if (hedgeLane) {
            // Taken before looking, so the fetch cannot end between a cut and the read of its tail.
            lanes++;
        }
        return new Tick(add, hedgeLane);
    }

    /**
     * Tells the tuner of a 503 SlowDown at {@code now}, once per {@link ConnectionTuning#interval()}: the GETs in
     * flight when S3 pushed back each get one, and told each they would halve the count once per GET, down to one.
     */
    synchronized void throttled(long now) {
        if (throttledBefore && now - lastThrottleNanos < tuning.interval().toNanos()) {
            return;
        }
        throttledBefore = true;
        lastThrottleNanos = now;
        target = Math.max(1, Math.min(maxLanes, tuner.throttled()));
    }

    /** Whether more lanes run than the tuner wants. */
    synchronized boolean overTarget() {
        return lanes > target;
    }

    /** A lane stops; true when it was the last. */
    synchronized boolean retire() {
        lanes--;
        return lanes == 0;
    }

    /** Whether the last interval's rate was near the best so far ({@link TailHedge#BUSY}): the link is busy. */
    synchronized boolean busy() {
        return peakRate > 0 && lastRate > TailHedge.BUSY * peakRate;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
