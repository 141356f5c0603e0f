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
 */
public record PeerLimits(Duration handshakeTimeout, int maxPendingConnections, int maxPeers, Duration requestTimeout,
        long serveBytesPerSecond) {

    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_PENDING_CONNECTIONS = 64;
    public static final int DEFAULT_MAX_PEERS = 256;
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    public PeerLimits {
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero() || requestTimeout.isNegative()
                || requestTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout and requestTimeout must be > 0, were "
                    + handshakeTimeout + ", " + requestTimeout);
        }
        if (maxPendingConnections <= 0 || maxPeers <= 0 || serveBytesPerSecond < 0) {
            throw new IllegalArgumentException("maxPendingConnections and maxPeers > 0, serveBytesPerSecond >= 0 needed: "
                    + maxPendingConnections + ", " + maxPeers + ", " + serveBytesPerSecond);
        }
    }

    /** The defaults: 10 s handshake, 64 pending, 256 peers, 30 s per request, no serve rate limit. */
    public static PeerLimits defaults() {
        return new PeerLimits(DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_PENDING_CONNECTIONS, DEFAULT_MAX_PEERS,
                DEFAULT_REQUEST_TIMEOUT, 0);
    }
}
