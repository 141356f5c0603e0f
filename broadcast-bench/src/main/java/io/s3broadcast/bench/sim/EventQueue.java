package io.s3broadcast.bench.sim;

import com.google.common.base.Ticker;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/**
 * The simulator's virtual clock: a priority queue of events by time (nanoseconds), ties in the order they were
 * scheduled. No threads and no sleeps: {@link #run} takes the earliest event, sets the clock to its time and runs it,
 * until a condition holds, the queue is empty or a time limit passes. The same schedule always runs the same way.
 */
public final class EventQueue {

    private record Event(long at, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private long now;
    private long seq;
    private long executed;

    /** Virtual time in nanoseconds since the start. */
    public long now() {
        return now;
    }

    /** The clock as a {@link Ticker}, for the policy classes that read time. */
    public Ticker ticker() {
        return new Ticker() {
            @Override
            public long read() {
                return now;
            }
        };
    }

    /** Runs {@code action} at {@code at} (not before now). */
    public void at(long at, Runnable action) {
        if (at < now) {
            throw new IllegalArgumentException("event at " + at + " ns is before now (" + now + " ns)");
        }
        queue.add(new Event(at, seq++, action));
    }

    /** Runs {@code action} {@code delayNanos} from now. */
    public void after(long delayNanos, Runnable action) {
        at(now + Math.max(0, delayNanos), action);
    }

    /**
     * Runs events in order until {@code done} holds (checked after each event), nothing is queued, or the next event
     * is later than {@code limitNanos}. Returns whether {@code done} holds.
     */
    public boolean run(BooleanSupplier done, long limitNanos) {
        while (!done.getAsBoolean()) {
            Event e = queue.peek();
            if (e == null || e.at > limitNanos) {
                return false;
            }
            queue.poll();
            now = e.at;
            executed++;
            e.action.run();
        }
        return true;
    }

    /** Events run so far. */
    public long executed() {
        return executed;
    }

    /** Events waiting. */
    public int pending() {
        return queue.size();
    }
}
