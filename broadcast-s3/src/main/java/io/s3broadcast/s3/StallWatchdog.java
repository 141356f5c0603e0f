package io.s3broadcast.s3;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Watches one in-flight GET and gives up on it when no byte arrived for the stall timeout (headers
 * included). One timer at a time: it fires at the earliest moment the request could have stalled, and
 * re-arms for the rest when bytes came meanwhile, so progress costs one volatile write per chunk.
 */
final class StallWatchdog {

    private final ScheduledExecutorService scheduler;
    private final Ticker ticker;
    private final long timeoutNanos;
    private final LongConsumer onStall;
    private volatile long lastProgress;
    private ScheduledFuture<?> timer; // guarded by this
    private boolean stopped; // guarded by this

    /**
     * @param onStall runs once, on the scheduler's thread, with the nanoseconds since the last byte
     */
    StallWatchdog(ScheduledExecutorService scheduler, Ticker ticker, Duration timeout, LongConsumer onStall) {
        this.scheduler = scheduler;
        this.ticker = ticker;
        this.timeoutNanos = Math.max(1, timeout.toNanos());
        this.onStall = onStall;
    }

    /** Arms the timer. */
    void start() {
        lastProgress = ticker.read();
        arm(timeoutNanos);
    }

    /** Bytes arrived. */
    void progress() {
        lastProgress = ticker.read();
    }

    /** Disarms the timer for good. */
    synchronized void stop() {
        stopped = true;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private synchronized void arm(long delayNanos) {
        if (!stopped) {
            timer = scheduler.schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void check() {
        long idle = ticker.read() - lastProgress;
        if (idle < timeoutNanos) {
            try {
                arm(timeoutNanos - idle);
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
        onStall.accept(idle);
    }
}
