package io.s3broadcast.registry;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The members a broadcast starts with.
 *
 * @param members the members, ordered by node id
 * @param expected how many were expected; 0 when no count was given
 * @param timedOut true when the wait ended at the timeout with fewer than {@code expected} members
 */
public record Membership(List<NodeInfo> members, int expected, boolean timedOut) {

    public Membership {
        members = List.copyOf(members);
        if (expected < 0) {
            throw new IllegalArgumentException("expected must be >= 0, was " + expected);
        }
    }

    /** Whether at least the expected number of members are here. */
    public boolean complete() {
        return members.size() >= expected;
    }

    /**
     * Waits until {@code registry} has {@code expected} members, up to {@code timeout}, then completes with
     * whoever is there: the broadcast starts with them and late joiners take part through stealing and phase 2.
     * With {@code expected == 0} (no count given) it completes at once with the current members.
     *
     * <p>Time is the scheduler's: the timeout is one task on {@code scheduler}, so a test can drive it with a
     * manual scheduler. Never throws; cancelling the returned future stops the wait. By the time the future
     * completes, the wait's registry listener is closed and its timer cancelled. Members that leave
     * during the wait stop counting: the count is always {@link NodeRegistry#members()}.
     *
     * @param registry a started registry
     * @param expected the number of nodes in the group, this one included, or 0 if unknown
     */
    public static CompletableFuture<Membership> awaitMembers(NodeRegistry registry, int expected, Duration timeout,
                                                             ScheduledExecutorService scheduler) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(scheduler, "scheduler");
        MemberWait wait = new MemberWait();
        if (expected < 0) {
            wait.result.completeExceptionally(new IllegalArgumentException("expected must be >= 0, was " + expected));
            return wait.result;
        }
        if (expected == 0) {
            wait.result.complete(new Membership(registry.members(), 0, false));
            return wait.result;
        }
        Runnable check = () -> {
            List<NodeInfo> now = registry.members();
            if (now.size() >= expected) {
                wait.finish(new Membership(now, expected, false));
            }
        };
        try {
            wait.watching(registry.watch(new MembershipListener() {
                @Override
                public void joined(NodeInfo node) {
                    check.run();
                }
            }));
            check.run();
        } catch (RuntimeException e) {
            wait.fail(e);
            return wait.result;
        }
        if (!wait.result.isDone()) {
            try {
                wait.timing(scheduler.schedule(() -> {
                    List<NodeInfo> now = registry.members();
                    wait.finish(new Membership(now, expected, now.size() < expected));
                }, Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS));
            } catch (RuntimeException e) {
                wait.fail(e);
            }
        }
        // Cancelled by the caller: released after the fact, in the caller's thread.
        wait.result.whenComplete((membership, failure) -> wait.release());
        return wait.result;
    }

    /**
     * One {@link #awaitMembers} wait: its watch and timer are released before its result completes, so whoever sees
     * the result sees no timer left on its scheduler and no listener left on the registry.
     */
    private static final class MemberWait {
        final CompletableFuture<Membership> result = new CompletableFuture<>();
        private NodeRegistry.Watch watch;
        private ScheduledFuture<?> timer;
        private boolean released;

        /** Releases the watch and timer, then completes with {@code membership} (unless already completed). */
        void finish(Membership membership) {
            release();
            result.complete(membership);
        }

        void fail(RuntimeException e) {
            release();
            result.completeExceptionally(e);
        }

        /** The registry's watch; closed at once should the wait be over already (a listener hears current members). */
        void watching(NodeRegistry.Watch w) {
            synchronized (this) {
                if (!released) {
                    watch = w;
                    return;
                }
            }
            w.close();
        }

        /** The timeout's task; cancelled at once should the wait be over already. */
        void timing(ScheduledFuture<?> t) {
            synchronized (this) {
                if (!released) {
                    timer = t;
                    return;
                }
            }
            t.cancel(false);
        }

        /** Closes the watch and cancels the timer; idempotent. */
        void release() {
            NodeRegistry.Watch w;
            ScheduledFuture<?> t;
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
                w = watch;
                t = timer;
                watch = null;
                timer = null;
            }
            if (w != null) {
                w.close();
            }
            if (t != null) {
                t.cancel(false);
            }
        }
    }
}
