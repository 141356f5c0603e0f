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
     * manual scheduler. Never throws; cancelling the returned future stops the wait. Members that leave
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
        CompletableFuture<Membership> result = new CompletableFuture<>();
        if (expected < 0) {
            result.completeExceptionally(new IllegalArgumentException("expected must be >= 0, was " + expected));
            return result;
        }
        if (expected == 0) {
            result.complete(new Membership(registry.members(), 0, false));
            return result;
        }
        Runnable check = () -> {
            List<NodeInfo> now = registry.members();
            if (now.size() >= expected) {
                result.complete(new Membership(now, expected, false));
            }
        };
        NodeRegistry.Watch watch;
        try {
            watch = registry.watch(new MembershipListener() {
                @Override
                public void joined(NodeInfo node) {
                    check.run();
                }
            });
            check.run();
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return result;
        }
        ScheduledFuture<?> timer = null;
        if (!result.isDone()) {
            try {
                timer = scheduler.schedule(() -> {
                    List<NodeInfo> now = registry.members();
                    result.complete(new Membership(now, expected, now.size() < expected));
                }, Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }
        ScheduledFuture<?> scheduled = timer;
        result.whenComplete((membership, failure) -> {
            watch.close();
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        });
        return result;
    }
}
