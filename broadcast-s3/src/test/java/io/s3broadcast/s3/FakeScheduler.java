package io.s3broadcast.s3;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** A scheduler on fake time: tasks run on the test's thread when {@link #advance} passes their time. */
final class FakeScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
    private long now;
    private long sequence;
    private boolean shutdown;

    final Ticker ticker = new Ticker() {
        @Override
        public long read() {
            synchronized (FakeScheduler.this) {
                return now;
            }
        }
    };

    /** Moves time forward by {@code d}, running every task due on the way, in time order. */
    void advance(Duration d) {
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
            next.run();
            if (!next.isCancelled()) {
                try {
                    next.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new AssertionError("a scheduled task failed", e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }
    }

    /** Runs the tasks due now. */
    void runDue() {
        advance(Duration.ZERO);
    }

    /** Delays of the tasks waiting (not cancelled), from now. */
    synchronized List<Duration> pending() {
        List<Duration> out = new ArrayList<>();
        for (Task<?> t : queue) {
            if (!t.isCancelled()) {
                out.add(Duration.ofNanos(t.time - now));
            }
        }
        return out;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(new Task<>(command, null, unit.toNanos(delay)));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return add(new Task<>(callable, unit.toNanos(delay)));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> out = new ArrayList<>(queue);
        queue.clear();
        return out;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown && queue.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    private synchronized <V> Task<V> add(Task<V> task) {
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        task.time = now + Math.max(0, task.delay);
        task.seq = sequence++;
        queue.add(task);
        return task;
    }

    private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
        final long delay;
        long time;
        long seq;

        Task(Runnable r, V result, long delay) {
            super(r, result);
            this.delay = delay;
        }

        Task(Callable<V> c, long delay) {
            super(c);
            this.delay = delay;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            synchronized (FakeScheduler.this) {
                queue.remove(this);
            }
            return cancelled;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(time - ticker.read(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            Task<?> other = (Task<?>) o;
            int c = Long.compare(time, other.time);
            return c != 0 ? c : Long.compare(seq, other.seq);
        }
    }
}
