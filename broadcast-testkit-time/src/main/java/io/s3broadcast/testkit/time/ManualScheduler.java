package io.s3broadcast.testkit.time;

import com.google.common.base.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} on a manual clock, for tests: nothing runs until the test moves time
 * with {@link #advance(Duration)} (or runs what is already due with {@link #runPending()}); then every task
 * that falls due runs on the test's thread, in time order (ties in the order they were scheduled), with the
 * clock set to the task's time while it runs.
 *
 * <ul>
 *   <li>One-shot tasks ({@code schedule}, {@code execute}, {@code submit}; {@code execute} and
 *       {@code submit} are due at once, i.e. at the next {@code runPending()} or {@code advance}) run once.
 *   <li>Periodic tasks run again and again while time is advanced: {@code scheduleAtFixedRate} every
 *       {@code period} after the previous <em>due</em> time, {@code scheduleWithFixedDelay} {@code delay}
 *       after the previous run (the same thing here, since the clock does not move while a task runs).
 *       One {@code advance} runs a periodic task as many times as its period fits.
 *   <li>A task that throws fails the test: {@code advance} rethrows it as an {@link AssertionError} (the
 *       task's future still completes exceptionally, and a periodic task is not rescheduled, as in the JDK).
 *   <li>Cancelling a task's future removes it from the schedule.
 *   <li>{@link #scheduled()} and {@link #delays()} show what is waiting, for assertions such as "the
 *       timer was cancelled" or "the next retry is in 50 ms".
 *   <li>{@link #ticker()}, {@link #nanoTime()} and {@link #clock()} read the same fake time, for code that
 *       measures time as well as scheduling on it. The clock starts at {@code start} (default the epoch).
 *   <li>{@code shutdown} makes later submissions fail with {@link RejectedExecutionException}; already
 *       scheduled tasks still run when time is advanced. {@code shutdownNow} also drops them.
 * </ul>
 *
 * <p>It is thread-safe: code under test may schedule or cancel from other threads (SDK callbacks,
 * watchers); tasks themselves only ever run on the thread that calls {@code advance} or {@code runPending}.
 * {@code awaitTermination} never waits: there is no other thread to wait for.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    /**
     * What is waiting to run.
     *
     * @param delay  time from now until it is due (zero or negative if due already)
     * @param period time between runs for a periodic task, {@link Duration#ZERO} for a one-shot
     */
    public record Scheduled(Duration delay, Duration period) {
        /** Whether the task repeats. */
        public boolean periodic() {
            return !period.isZero();
        }
    }

    private final Instant start;
    private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
    private long now; // nanoseconds since start
    private long sequence;
    private boolean shutdown;

    private final Ticker ticker = new Ticker() {
        @Override
        public long read() {
            return nanoTime();
        }
    };

    /** A scheduler whose {@link #clock()} starts at the epoch. */
    public ManualScheduler() {
        this(Instant.EPOCH);
    }

    /** A scheduler whose {@link #clock()} starts at {@code start}. */
    public ManualScheduler(Instant start) {
        this.start = Objects.requireNonNull(start, "start");
    }

    // ---- time ----

    /** Fake nanoseconds since this scheduler was made: starts at 0 and moves only with {@link #advance}. */
    public synchronized long nanoTime() {
        return now;
    }

    /** A Guava {@link Ticker} reading {@link #nanoTime()}. */
    public Ticker ticker() {
        return ticker;
    }

    /** The current fake instant: {@code start} plus the time advanced so far. */
    public Instant instant() {
        return start.plusNanos(nanoTime());
    }

    /** A {@link Clock} (UTC) reading {@link #instant()}. */
    public Clock clock() {
        return new ManualClock(ZoneOffset.UTC);
    }

    /**
     * Moves time forward by {@code d}, running every task that falls due on the way (including those that
     * due tasks schedule within the window, and every repetition of periodic tasks), in time order.
     *
     * @throws AssertionError if a task throws
     */
    public void advance(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("time does not go back: " + d);
        }
        long target;
        synchronized (this) {
            target = now + d.toNanos();
        }
        while (true) {
            Task<?> next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.time > target) {
                    now = target;
                    return;
                }
                queue.poll();
                now = Math.max(now, next.time);
            }
            next.fire();
        }
    }

    /**
     * Runs the tasks that are due now (submitted with {@code execute}/{@code submit}, or with no delay),
     * and any these submit for now, without moving the clock. The same as {@code advance(Duration.ZERO)}.
     */
    public void runPending() {
        advance(Duration.ZERO);
    }

    // ---- inspection ----

    /** The tasks waiting (not cancelled), in the order they will run. */
    public synchronized List<Scheduled> scheduled() {
        List<Task<?>> tasks = new ArrayList<>(queue);
        tasks.sort(null);
        List<Scheduled> out = new ArrayList<>();
        for (Task<?> t : tasks) {
            if (!t.isCancelled()) {
                out.add(new Scheduled(Duration.ofNanos(t.time - now), Duration.ofNanos(Math.abs(t.period))));
            }
        }
        return out;
    }

    /** The delays from now of the tasks waiting, in the order they will run. */
    public List<Duration> delays() {
        return scheduled().stream().map(Scheduled::delay).toList();
    }

    // ---- ScheduledExecutorService ----

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(new Task<>(Executors.callable(command, null), unit.toNanos(delay), 0));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return add(new Task<>(callable, unit.toNanos(delay), 0));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        if (period <= 0) {
            throw new IllegalArgumentException("period " + period + " must be positive");
        }
        return add(new Task<>(Executors.callable(command, null), unit.toNanos(initialDelay), unit.toNanos(period)));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        if (delay <= 0) {
            throw new IllegalArgumentException("delay " + delay + " must be positive");
        }
        // A negative period marks fixed delay, as in ScheduledThreadPoolExecutor.
        return add(new Task<>(Executors.callable(command, null), unit.toNanos(initialDelay), -unit.toNanos(delay)));
    }

    @Override
    public void execute(Runnable command) {
        schedule(Objects.requireNonNull(command, "command"), 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>(queue);
        queue.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown && queue.isEmpty();
    }

    /** Does not wait: returns {@link #isTerminated()}. */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    private synchronized <V> Task<V> add(Task<V> task) {
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        task.time = now + Math.max(0, task.initialDelay);
        task.seq = sequence++;
        queue.add(task);
        return task;
    }

    private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
        final long initialDelay;
        /** Positive: fixed rate; negative: fixed delay; zero: one-shot. */
        final long period;
        long time;
        long seq;

        Task(Callable<V> callable, long initialDelay, long period) {
            super(callable);
            this.initialDelay = initialDelay;
            this.period = period;
        }

        /** Runs this task (its time has come), reschedules it if periodic, and fails the test if it threw. */
        void fire() {
            if (period == 0) {
                run();
            } else if (runAndReset()) {
                synchronized (ManualScheduler.this) {
                    if (isCancelled()) {
                        return;
                    }
                    time = period > 0 ? time + period : now - period;
                    seq = sequence++;
                    queue.add(this);
                }
                return;
            }
            if (isCancelled()) {
                return;
            }
            try {
                get();
            } catch (ExecutionException e) {
                throw new AssertionError("a scheduled task failed", e.getCause());
            } catch (CancellationException e) {
                // cancelled while running: nothing to report
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            synchronized (ManualScheduler.this) {
                queue.remove(this);
            }
            return cancelled;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(time - nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            if (o instanceof Task<?> other) {
                int c = Long.compare(time, other.time);
                return c != 0 ? c : Long.compare(seq, other.seq);
            }
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
        }
    }

    private final class ManualClock extends Clock {
        private final ZoneId zone;

        ManualClock(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return new ManualClock(zone);
        }

        @Override
        public Instant instant() {
            return ManualScheduler.this.instant();
        }
    }
}
