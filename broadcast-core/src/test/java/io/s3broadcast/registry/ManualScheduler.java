package io.s3broadcast.registry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** A scheduler on fake time: tasks run on the test thread when {@link #advance} passes their time. */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
    private long now;
    private long sequence;
    private boolean shutdown;

    long nanoTime() {
        return now;
    }

    /** Moves time forward by {@code d}, running every task that falls due, in time order. */
    void advance(Duration d) {
        long until = now + d.toNanos();
        while (true) {
            Task<?> next = queue.peek();
            if (next == null || next.at > until) {
                break;
            }
            queue.poll();
            now = next.at;
            next.fire();
        }
        now = until;
    }

    /** Runs what is due now. */
    void runDue() {
        advance(Duration.ZERO);
    }

    int pending() {
        return (int) queue.stream().filter(t -> !t.isCancelled()).count();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(new Task<>(Executors.callable(command, null), now + unit.toNanos(delay), 0));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return add(new Task<>(callable, now + unit.toNanos(delay), 0));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return add(new Task<>(Executors.callable(command, null), now + unit.toNanos(initialDelay), unit.toNanos(period)));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return scheduleAtFixedRate(command, initialDelay, delay, unit);
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    private <V> Task<V> add(Task<V> task) {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("shut down");
        }
        queue.add(task);
        return task;
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>(queue);
        queue.clear();
        return left;
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown && queue.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
        private long at;
        private final long period;
        private final long seq = sequence++;

        Task(Callable<V> callable, long at, long period) {
            super(callable);
            this.at = at;
            this.period = period;
        }

        void fire() {
            if (period == 0) {
                run();
            } else if (runAndReset()) {
                at += period;
                queue.add(this);
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(at - now, TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            Task<?> t = (Task<?>) o;
            int c = Long.compare(at, t.at);
            return c != 0 ? c : Long.compare(seq, t.seq);
        }
    }
}
