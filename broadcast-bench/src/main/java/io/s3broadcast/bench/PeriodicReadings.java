package io.s3broadcast.bench;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The readings of a sampler that reads some counters at a fixed interval during a fleet trial ({@link CpuSaturation},
 * {@link LinkUse}): one at {@link #start}, one every interval while the reading succeeds, a last one at {@link
 * #stop}, none after. On a daemon thread of its own, shut down with it, or on a scheduler it is given (a test's fake
 * time), left running.
 */
final class PeriodicReadings {

    private final ScheduledExecutorService scheduler;
    private final boolean ownScheduler;
    private BooleanSupplier read;
    private ScheduledFuture<?> task;
    private boolean stopped;

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

    /**
     * Takes a reading now and one every {@code interval} from now on; {@code read} returns false when it could not
     * read, and is then not asked again.
     */
    synchronized void start(Duration interval, BooleanSupplier read) {
        this.read = read;
        if (read.getAsBoolean()) {
            task = scheduler.scheduleAtFixedRate(this::next, interval.toMillis(), interval.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    private synchronized void next() {
        if (!stopped && !read.getAsBoolean()) {
            task.cancel(false);
        }
    }

    /**
     * Takes the last reading (so the interval since the one before counts) and stops; the thread ends if it is this
     * one's own.
     */
    void stop() {
        synchronized (this) {
            if (!stopped && read != null) {
                read.getAsBoolean();
            }
            stopped = true;
            if (task != null) {
                task.cancel(false);
            }
        }
        if (ownScheduler) {
            scheduler.shutdownNow();
        }
    }
}
