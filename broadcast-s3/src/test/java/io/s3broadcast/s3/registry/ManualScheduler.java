package io.s3broadcast.s3.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Keeps every scheduled task until the test runs it: heartbeats, polls and timeouts happen when the test says. */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final List<Task> tasks = new ArrayList<>();

    /** Runs each live periodic task once (heartbeats and polls), in the order they were scheduled. */
    void runPeriodic() {
        for (Task t : snapshot()) {
            if (t.periodic && !t.isCancelled()) {
                t.runOnce();
            }
        }
    }

    /** Runs the one-shot tasks (timeouts) scheduled so far. */
    void fireOneShots() {
        List<Task> due = new ArrayList<>();
        synchronized (this) {
            tasks.removeIf(t -> {
                if (!t.periodic) {
                    due.add(t);
                    return true;
                }
                return false;
            });
        }
        due.forEach(Task::run);
    }

    synchronized int live(boolean periodic) {
        return (int) tasks.stream().filter(t -> t.periodic == periodic && !t.isCancelled()).count();
    }

    private synchronized List<Task> snapshot() {
        return new ArrayList<>(tasks);
    }

    private synchronized Task add(Runnable command, boolean periodic) {
        Task task = new Task(command, periodic);
        tasks.add(task);
        return task;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(command, false);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return add(command, true);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return add(command, true);
    }

    @Override
    public void execute(Runnable command) {
        add(command, false);
    }

    @Override
    public void shutdown() {
    }

    @Override
    public List<Runnable> shutdownNow() {
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isTerminated() {
        return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return false;
    }

    private static final class Task extends FutureTask<Void> implements ScheduledFuture<Void> {
        final boolean periodic;

        Task(Runnable command, boolean periodic) {
            super(command, null);
            this.periodic = periodic;
        }

        void runOnce() {
            runAndReset();
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return 0;
        }

        @Override
        public int compareTo(Delayed o) {
            return 0;
        }
    }
}
