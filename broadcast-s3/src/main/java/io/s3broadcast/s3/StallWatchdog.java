package io.s3broadcast.s3;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Watches one in-flight GET and gives up on it when its response has not begun within the first-byte
 * timeout of the request, or when, once begun, no byte arrived for the stall timeout. One timer at a time:
 * it fires at the earliest moment the request could have stalled, and re-arms for the rest when bytes came
 * meanwhile, so progress costs two volatile writes per chunk (and, on the first byte, an earlier timer when the stall
 * timeout is the shorter).
 */
final class StallWatchdog {

    /** Told once when the watched request stalled. */
    @FunctionalInterface
    interface Stalled {
        /**
         * @param idleNanos nanoseconds since the request was sent ({@code beforeFirstByte}) or since its last byte
         * @param beforeFirstByte true when no byte of the response (status line and headers included) came at all
         */
        void stalled(long idleNanos, boolean beforeFirstByte);
    }

    private final ScheduledExecutorService scheduler;
    private final Ticker ticker;
    private final long firstByteNanos;
    private final long stallNanos;
    private final Stalled onStall;
    private volatile long lastProgress;
    private volatile boolean responded;
    private ScheduledFuture<?> timer; // guarded by this
    private boolean stopped; // guarded by this

    /**
     * @param firstByteTimeout limit from {@link #start()} to the first {@link #progress()}
     * @param stallTimeout limit between two {@link #progress()} calls
     * @param onStall runs once, on the scheduler's thread
     */
    StallWatchdog(ScheduledExecutorService scheduler, Ticker ticker, Duration firstByteTimeout, Duration stallTimeout,
            Stalled onStall) {
        this.scheduler = scheduler;
        this.ticker = ticker;
        this.firstByteNanos = Math.max(1, firstByteTimeout.toNanos());
        this.stallNanos = Math.max(1, stallTimeout.toNanos());
        this.onStall = onStall;
    }

    /** Arms the timer; call just before sending the request. */
    void start() {
        lastProgress = ticker.read();
        arm(firstByteNanos);
    }

    /** Bytes arrived (the response's headers count). */
    void progress() {
        lastProgress = ticker.read();
        if (!responded) {
            responded = true;
            if (stallNanos < firstByteNanos) {
                // The timer waits for the first-byte timeout; a stall from here on must be seen sooner.
                arm(stallNanos);
            }
        }
    }

    /** Disarms the timer for good. */
    synchronized void stop() {
        stopped = true;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** Replaces the timer (from {@link #check()}, the one running now; from the first byte, the pending one). */
    private synchronized void arm(long delayNanos) {
        if (!stopped) {
            if (timer != null) {
                timer.cancel(false);
            }
            timer = scheduler.schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void check() {
        // Read responded first: once it is true, lastProgress holds the time of a byte.
        boolean begun = responded;
        long limit = begun ? stallNanos : firstByteNanos;
        long idle = ticker.read() - lastProgress;
        if (idle < limit) {
            try {
                arm(limit - idle);
            } catch (RejectedExecutionException e) {
                // The source is closing; its close cancels the request this watched.
            }
            return;
        }
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            timer = null;
        }
        onStall.stalled(idle, !begun);
    }
}
