package io.s3broadcast.bench;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The timer of a sampler that reads some counters at a fixed interval during a fleet trial ({@link CpuSaturation},
 * {@link LinkUse}): on a daemon thread of its own, shut down with it, or on a scheduler it is given (a test's fake
 * time), left running.
 */
final class PeriodicReadings {

    private final ScheduledExecutorService scheduler;
    private final boolean ownScheduler;
    private ScheduledFuture<?> task;

    /** On a daemon thread of its own named {@code threadName}. */
    static PeriodicReadings ownThread(String threadName) {
        return new PeriodicReadings(Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        }), true);
    }

    /** On {@code scheduler}, which {@link #stop()} does not shut down. */
    static PeriodicReadings on(ScheduledExecutorService scheduler) {
        return new PeriodicReadings(scheduler, false);
    }

    private PeriodicReadings(ScheduledExecutorService scheduler, boolean ownScheduler) {
        this.scheduler = scheduler;
        this.ownScheduler = ownScheduler;
    }

    /** Runs {@code read} every {@code interval}, the first time one interval from now. */
    synchronized void every(Duration interval, Runnable read) {
        task = scheduler.scheduleAtFixedRate(read, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** No more readings; the thread ends if it is this one's own. */
    void stop() {
        synchronized (this) {
            if (task != null) {
                task.cancel(false);
            }
        }
        if (ownScheduler) {
            scheduler.shutdownNow();
        }
    }
}
