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
        Duration requestQueueTime) {

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
        if (expectedNodes < 0 || workSize <= 0 || unchokeSlots <= 0 || maxRequestsPerPeer <= 0) {
            throw new IllegalArgumentException("expectedNodes >= 0, workSize, unchokeSlots and maxRequestsPerPeer > 0 needed: "
                    + expectedNodes + ", " + workSize + ", " + unchokeSlots + ", " + maxRequestsPerPeer);
        }
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
                chokeInterval, unchokeSlots, maxRequestsPerPeer, security, limits, ticker, TIT_FOR_TAT, Duration.ZERO);
    }
}
