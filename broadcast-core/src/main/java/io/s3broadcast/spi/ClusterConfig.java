package io.s3broadcast.spi;

import com.google.common.base.Ticker;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of this node's part in cluster broadcasts, resolved by {@code Broadcast.builder()} from explicit
 * values, system properties, environment variables and defaults.
 *
 * @param registry registry spec: {@code static:host:port,host:port}, {@code s3://bucket/prefix} or
 *     {@code zk://host:port/path}; null when none is configured (cluster strategies then fail with a clear error)
 * @param nodeId this node's id, unique in the group
 * @param listen address the peer server binds (port 0: any free port)
 * @param advertisedHost host other nodes reach this one at, or null to choose an interface
 * @param groupName optional name separating broadcasts of the same object, or null
 * @param expectedNodes nodes to wait for before starting (0: start at once with whoever is there)
 * @param expectTimeout how long to wait for them; then start with who is there
 * @param workSize pieces per work (the unit of stealing)
 * @param linger how long a complete node keeps serving peers that are not done yet
 * @param chokeInterval how often the choker re-decides whom to serve
 * @param unchokeSlots peers served at once, besides the optimistic one (cooperative: up to
 *     {@code unchokeSlots + 1} interested peers, the last optimistic when more want to be)
 * @param maxRequestsPerPeer the most requests kept in flight to one peer, and the most served to one peer
 *     at once
 * @param security the group secret (or insecure mode) and TLS of peer connections
 * @param limits limits and timeouts that protect this node from peers
 * @param ticker time source
 * @param chokePolicy {@code cooperative} or {@code tit-for-tat}: how the choker picks whom to serve
 * @param requestQueueTime how much of a peer's measured delivery rate the requests outstanding to it cover
 *     (the pipeline depth, within {@code maxRequestsPerPeer}); zero for a fixed {@code maxRequestsPerPeer}
 * @param overlayPeers the peers this node keeps (its overlay): it dials members until it has this many, and
 *     accepts a few more ({@link #acceptPeers()}); a group of at most {@code overlayPeers + 1} nodes is a full mesh
 * @param catchUpShare while this node holds fewer pieces than its peers' median (by more than 1/64 of them), its
 *     uploads go at this fraction of the highest rate they reached, so the acknowledgements of its downloads do not
 *     queue behind them; 1 for no pacing
 */
public record ClusterConfig(
        String registry,
        String nodeId,
        InetSocketAddress listen,
        String advertisedHost,
        String groupName,
        int expectedNodes,
        Duration expectTimeout,
        int workSize,
        Duration linger,
        Duration chokeInterval,
        int unchokeSlots,
        int maxRequestsPerPeer,
        PeerSecurity security,
        PeerLimits limits,
        Ticker ticker,
        String chokePolicy,
        Duration requestQueueTime,
        int overlayPeers,
        double catchUpShare) {

    /** The default {@code overlayPeers}: the cooperative choker's 15 + 1 unchoke slots (docs/scale.md). */
    public static final int DEFAULT_OVERLAY_PEERS = 16;
    /** The default {@code catchUpShare} (docs/results.md, session 34). */
    public static final double DEFAULT_CATCH_UP_SHARE = 0.9;

    /** Choking policy names (see {@code chokePolicy}). */
    public static final String COOPERATIVE = "cooperative";
    public static final String TIT_FOR_TAT = "tit-for-tat";

    public ClusterConfig {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(expectTimeout, "expectTimeout");
        Objects.requireNonNull(linger, "linger");
        Objects.requireNonNull(chokeInterval, "chokeInterval");
        Objects.requireNonNull(ticker, "ticker");
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(chokePolicy, "chokePolicy");
        Objects.requireNonNull(requestQueueTime, "requestQueueTime");
        if (requestQueueTime.isNegative()) {
            throw new IllegalArgumentException("requestQueueTime must be >= 0, was " + requestQueueTime);
        }
        if (overlayPeers <= 0) {
            throw new IllegalArgumentException("overlayPeers must be > 0, was " + overlayPeers);
        }
        if (!(catchUpShare > 0 && catchUpShare <= 1)) {
            throw new IllegalArgumentException("catchUpShare must be in (0, 1] (1: no pacing), was " + catchUpShare);
        }
        if (expectedNodes < 0 || workSize <= 0 || unchokeSlots <= 0 || maxRequestsPerPeer <= 0) {
            throw new IllegalArgumentException("expectedNodes >= 0, workSize, unchokeSlots and maxRequestsPerPeer > 0 needed: "
                    + expectedNodes + ", " + workSize + ", " + unchokeSlots + ", " + maxRequestsPerPeer);
        }
    }

    /** These settings with the default {@link #DEFAULT_OVERLAY_PEERS} and {@link #DEFAULT_CATCH_UP_SHARE}. */
    public ClusterConfig(String registry, String nodeId, InetSocketAddress listen, String advertisedHost,
            String groupName, int expectedNodes, Duration expectTimeout, int workSize, Duration linger,
            Duration chokeInterval, int unchokeSlots, int maxRequestsPerPeer, PeerSecurity security, PeerLimits limits,
            Ticker ticker, String chokePolicy, Duration requestQueueTime) {
        this(registry, nodeId, listen, advertisedHost, groupName, expectedNodes, expectTimeout, workSize, linger,
                chokeInterval, unchokeSlots, maxRequestsPerPeer, security, limits, ticker, chokePolicy, requestQueueTime,
                DEFAULT_OVERLAY_PEERS, DEFAULT_CATCH_UP_SHARE);
    }

    /**
     * The most peers this node accepts: {@code overlayPeers} plus a quarter (at least 2) for members that dial it
     * while it dials others, within {@code limits.maxPeers()}. Only dials count against {@code overlayPeers}, so two
     * nodes never both refuse each other for one connection. In a bounded overlay a member's first dial is taken only
     * below {@code overlayPeers} peers, the rest for a member that dials again (broadcast-p2p's {@code AcceptBound}).
     */
    public int acceptPeers() {
        return Math.min(limits.maxPeers(), overlayPeers + Math.max(2, overlayPeers / 4));
    }

    /** These settings with {@code overlayPeers} instead. */
    public ClusterConfig withOverlayPeers(int peers) {
        return new ClusterConfig(registry, nodeId, listen, advertisedHost, groupName, expectedNodes, expectTimeout,
                workSize, linger, chokeInterval, unchokeSlots, maxRequestsPerPeer, security, limits, ticker, chokePolicy,
                requestQueueTime, peers, catchUpShare);
    }

    /**
     * The settings as before policies were configurable: tit-for-tat choking and a fixed
     * {@code maxRequestsPerPeer} requests per peer.
     */
    public ClusterConfig(String registry, String nodeId, InetSocketAddress listen, String advertisedHost,
            String groupName, int expectedNodes, Duration expectTimeout, int workSize, Duration linger,
            Duration chokeInterval, int unchokeSlots, int maxRequestsPerPeer, PeerSecurity security, PeerLimits limits,
            Ticker ticker) {
        this(registry, nodeId, listen, advertisedHost, groupName, expectedNodes, expectTimeout, workSize, linger,
                chokeInterval, unchokeSlots, maxRequestsPerPeer, security, limits, ticker, TIT_FOR_TAT, Duration.ZERO,
                DEFAULT_OVERLAY_PEERS, DEFAULT_CATCH_UP_SHARE);
    }
}
