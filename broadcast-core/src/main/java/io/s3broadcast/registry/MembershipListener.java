package io.s3broadcast.registry;

/**
 * Hears who joins and leaves a group. A new listener first hears {@link #joined} for every current member,
 * then each change, so it never misses one and never needs to combine a snapshot with events.
 *
 * <p>Rules: calls come one at a time and in order, on a registry thread or on the thread that caused the
 * change; they must be quick and must not block. An exception thrown by a listener is logged and
 * otherwise ignored.
 */
public interface MembershipListener {

    /** {@code node} is a member now. A member whose address changes leaves and joins again. */
    default void joined(NodeInfo node) {
    }

    /** {@code node} is no longer a member: it left, its session ended or its entry went stale. */
    default void left(NodeInfo node) {
    }
}
