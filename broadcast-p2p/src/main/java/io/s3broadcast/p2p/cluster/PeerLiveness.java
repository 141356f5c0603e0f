package io.s3broadcast.p2p.cluster;

/**
 * When a peer connection needs a {@code KEEP_ALIVE} and when it is dead: a connection that has sent nothing for
 * the keep-alive interval sends one; a connection that has received no byte for the idle timeout (several
 * keep-alive intervals, so a CPU-starved peer is not dropped for one late keep-alive) is dead, and is closed so
 * that its peer's works fall to the others (the orphan rule) instead of waiting for a silent, blackholed peer.
 * Time is given in nanoseconds by the caller (its clock); one connection's, on its loop only.
 */
final class PeerLiveness {

    /** What the connection does now. */
    enum Action { NONE, KEEP_ALIVE, CLOSE }

    private final long keepAliveNanos;
    private final long idleTimeoutNanos;
    private long lastReceived;
    private long lastSent;

    /**
     * @param keepAliveNanos a {@code KEEP_ALIVE} goes out after this long without sending
     * @param idleTimeoutNanos the connection is dead after this long without receiving a byte
     * @param now the time the connection came up
     */
    PeerLiveness(long keepAliveNanos, long idleTimeoutNanos, long now) {
        if (keepAliveNanos <= 0 || idleTimeoutNanos <= keepAliveNanos) {
            throw new IllegalArgumentException("keep-alive interval > 0 and idle timeout > it needed: "
                    + keepAliveNanos + " ns, " + idleTimeoutNanos + " ns");
        }
        this.keepAliveNanos = keepAliveNanos;
        this.idleTimeoutNanos = idleTimeoutNanos;
        this.lastReceived = now;
        this.lastSent = now;
    }

    /** Bytes arrived. */
    void received(long now) {
        lastReceived = now;
    }

    /** Something went out. */
    void sent(long now) {
        lastSent = now;
    }

    /** What to do at {@code now}; a {@code KEEP_ALIVE} counts as sent once asked for. */
    Action check(long now) {
        if (now - lastReceived >= idleTimeoutNanos) {
            return Action.CLOSE;
        }
        if (now - lastSent >= keepAliveNanos) {
            lastSent = now;
            return Action.KEEP_ALIVE;
        }
        return Action.NONE;
    }

    /** How often {@link #check} should run: often enough that neither deadline slips by much. */
    long checkEveryNanos() {
        return Math.max(1, keepAliveNanos / 2);
    }

    long idleTimeoutNanos() {
        return idleTimeoutNanos;
    }
}
