package io.s3broadcast.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * What a node allows its peers, so that no peer, member or stranger, can hold its resources or stall it.
 *
 * @param handshakeTimeout how long an inbound connection may take, from accept, to complete the handshake and
 *     prove the group secret; then it is closed
 * @param maxPendingConnections inbound connections not yet authenticated, at most; one more closes the oldest
 * @param maxPeers authenticated peer connections per broadcast, at most; more are refused
 * @param requestTimeout a piece requested from a peer and not answered within this is requested elsewhere
 * @param serveBytesPerSecond bytes per second served to one peer at most, 0 for no limit
 * @param peerIdleTimeout a peer connection that received no byte for this long is closed as dead (a silent,
 *     unreachable peer), its works then fetched by the others; a {@code KEEP_ALIVE} goes out after a fifth of it
 *     without sending, so several must be missed
 */
public record PeerLimits(Duration handshakeTimeout, int maxPendingConnections, int maxPeers, Duration requestTimeout,
        long serveBytesPerSecond, Duration peerIdleTimeout) {

    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_PENDING_CONNECTIONS = 64;
    public static final int DEFAULT_MAX_PEERS = 256;
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_PEER_IDLE_TIMEOUT = Duration.ofSeconds(15);
    /** The keep-alive interval is the idle timeout divided by this. */
    public static final int KEEP_ALIVES_PER_IDLE_TIMEOUT = 5;

    public PeerLimits {
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero() || requestTimeout.isNegative()
                || requestTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout and requestTimeout must be > 0, were "
                    + handshakeTimeout + ", " + requestTimeout);
        }
        Objects.requireNonNull(peerIdleTimeout, "peerIdleTimeout");
        if (peerIdleTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("peerIdleTimeout must be at least 1s, was " + peerIdleTimeout);
        }
        if (maxPendingConnections <= 0 || maxPeers <= 0 || serveBytesPerSecond < 0) {
            throw new IllegalArgumentException("maxPendingConnections and maxPeers > 0, serveBytesPerSecond >= 0 needed: "
                    + maxPendingConnections + ", " + maxPeers + ", " + serveBytesPerSecond);
        }
    }

    /** These limits with the default {@link #DEFAULT_PEER_IDLE_TIMEOUT}. */
    public PeerLimits(Duration handshakeTimeout, int maxPendingConnections, int maxPeers, Duration requestTimeout,
            long serveBytesPerSecond) {
        this(handshakeTimeout, maxPendingConnections, maxPeers, requestTimeout, serveBytesPerSecond,
                DEFAULT_PEER_IDLE_TIMEOUT);
    }

    /**
     * The defaults: 10 s handshake, 64 pending, 256 peers, 30 s per request, no serve rate limit, 15 s idle timeout.
     */
    public static PeerLimits defaults() {
        return new PeerLimits(DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_PENDING_CONNECTIONS, DEFAULT_MAX_PEERS,
                DEFAULT_REQUEST_TIMEOUT, 0, DEFAULT_PEER_IDLE_TIMEOUT);
    }

    /**
     * A {@code KEEP_ALIVE} goes out after this long without sending: a fifth of the idle timeout, rounded down to
     * the nanosecond.
     */
    public Duration keepAliveInterval() {
        // Not Duration.dividedBy: it divides BigDecimals, and BigDecimal's class initialisation costs a fresh JVM
        // ~20 ms of CPU on the way to its first exchange.
        long seconds = peerIdleTimeout.getSeconds();
        long k = KEEP_ALIVES_PER_IDLE_TIMEOUT;
        return Duration.ofSeconds(seconds / k, (seconds % k * 1_000_000_000L + peerIdleTimeout.getNano()) / k);
    }
}
