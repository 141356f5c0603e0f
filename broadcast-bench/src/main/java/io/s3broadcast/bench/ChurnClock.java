package io.s3broadcast.bench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a trial's joiners start and its leavers leave ({@link Churn}): {@code joinAt} and {@code leaveAt} after the
 * transfer started, which is when the S3 proxy has sent {@link #STARTED_BYTES} to the fleet (the nodes' start-up,
 * registry and HEADs before it take from a few to tens of seconds on a shared machine, and a fixed time after the
 * start signal could fall before the first byte or after the last). Watches the proxy's counter on a thread of its
 * own; the bench's own clock.
 */
final class ChurnClock {

    private static final Logger LOG = LoggerFactory.getLogger(ChurnClock.class);

    /** The transfer counts as started once the proxy sent this many bytes (a piece or so: not the registry's). */
    static final long STARTED_BYTES = 1L << 20;

    private final Churn churn;
    private final LongSupplier bytesSent;
    private final long t0Millis;
    private final CompletableFuture<Void> join = new CompletableFuture<>();
    private final CompletableFuture<Void> leave = new CompletableFuture<>();
    private volatile long joinedMillis = -1;
    private volatile long leftMillis = -1;
    private volatile Thread thread;

    /**
     * @param bytesSent bytes the S3 proxy has sent to the fleet so far in this trial
     * @param t0Millis the trial's start signal (epoch ms)
     */
    /** Bytes the proxy has sent the fleet since its per-node counts were {@code base}, as {@code counts} tells now. */
    static LongSupplier sentSince(long[] base, Supplier<long[]> counts) {
        return () -> {
            long[] now = counts.get();
            long sum = 0;
            for (int i = 0; i < now.length; i++) {
                sum += now[i] - base[i];
            }
            return sum;
        };
    }

    ChurnClock(Churn churn, LongSupplier bytesSent, long t0Millis) {
        this.churn = churn;
        this.bytesSent = bytesSent;
        this.t0Millis = t0Millis;
    }

    /** Starts watching; {@link #join()} and {@link #leave()} complete at their times. */
    ChurnClock start() {
        Thread t = new Thread(this::run, "fleet-churn");
        t.setDaemon(true);
        thread = t;
        t.start();
        return this;
    }

    private void run() {
        try {
            while (bytesSent.getAsLong() < STARTED_BYTES) {
                Thread.sleep(20); // polling the proxy's byte counter: nothing to await
            }
            long started = System.currentTimeMillis();
            LOG.info("transfer started {} ms after the start signal; {}", started - t0Millis, churn.describe());
            long joinAt = started + churn.joinAt().toMillis();
            long leaveAt = started + churn.leaveAt().toMillis();
            boolean joinFirst = joinAt <= leaveAt;
            fire(joinFirst ? joinAt : leaveAt, joinFirst);
            fire(joinFirst ? leaveAt : joinAt, !joinFirst);
        } catch (InterruptedException e) {
            join.cancel(false);
            leave.cancel(false);
        }
    }

    private void fire(long atMillis, boolean isJoin) throws InterruptedException {
        long wait = atMillis - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
        if (isJoin) {
            joinedMillis = System.currentTimeMillis();
            join.complete(null);
        } else {
            leftMillis = System.currentTimeMillis();
            leave.complete(null);
        }
    }

    /** Completes when the joiners start. */
    CompletableFuture<Void> join() {
        return join;
    }

    /** Completes when the leavers leave. */
    CompletableFuture<Void> leave() {
        return leave;
    }

    /** Seconds from the start signal to the join, or null if it did not happen (or nobody joins). */
    Double joinedSeconds() {
        return churn.join() == 0 || joinedMillis < 0 ? null : SingleCommand.round((joinedMillis - t0Millis) / 1e3, 3);
    }

    /** Seconds from the start signal to the leave, or null if it did not happen (or nobody leaves). */
    Double leftSeconds() {
        return churn.leave() == 0 || leftMillis < 0 ? null : SingleCommand.round((leftMillis - t0Millis) / 1e3, 3);
    }

    /** Stops watching (the trial ended). */
    void stop() {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }

    static void await(CompletableFuture<Void> f) throws InterruptedException {
        try {
            f.get(1, TimeUnit.DAYS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                | java.util.concurrent.CancellationException e) {
            throw new InterruptedException("the churn clock stopped: " + e);
        }
    }
}
