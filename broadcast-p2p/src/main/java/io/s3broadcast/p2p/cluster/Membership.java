package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.registry.NodeInfo;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntSupplier;

/**
 * The group as this node sees it: the members the registry reports (joined, left), and those not connected yet.
 * A member that has not connected within the connect grace counts as gone for the end-of-run rules (its share
 * falls to the orphan rule, and a lingering node does not wait for it). When the group is larger than the
 * overlay (more than {@code overlayPeers} other members: this node connects to some of them only, {@link
 * Dialer}), the node waits for members only while it has fewer than {@code overlayPeers} peers, and at most the
 * connect grace: it cannot tell which of the others will connect. On the run's loop only; time is the injected
 * ticker's.
 */
final class Membership {

    /** A member that has not connected for this long counts as gone (its share falls to the orphan rule). */
    static final long CONNECT_GRACE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

    private final Ticker ticker;
    private final long connectGraceNanos;
    private final Map<String, NodeInfo> members = new TreeMap<>();
    private final Map<String, Long> pendingSince = new HashMap<>();
    /** Members that left (the registry's leave, or a {@code GOODBYE}): their word taken while members still counts. */
    private final java.util.Set<String> former = new java.util.HashSet<>();
    private final Map<String, NodeInfo> membersView = Collections.unmodifiableMap(members);
    private final Map<String, Long> pendingView = Collections.unmodifiableMap(pendingSince);

    private final int overlayPeers;
    private final IntSupplier peerCount;

    /** A full mesh: every member is waited for (up to the connect grace). */
    Membership(Ticker ticker, long connectGraceNanos) {
        this(ticker, connectGraceNanos, Integer.MAX_VALUE, () -> 0);
    }

    /**
     * @param overlayPeers the peers this node keeps ({@link Dialer})
     * @param peerCount how many peers this node has now
     */
    Membership(Ticker ticker, long connectGraceNanos, int overlayPeers, IntSupplier peerCount) {
        this.ticker = ticker;
        this.connectGraceNanos = connectGraceNanos;
        this.overlayPeers = overlayPeers;
        this.peerCount = peerCount;
    }

    /** Whether this node connects to only some of the members: there are more than {@code overlayPeers}. */
    boolean bounded() {
        return members.size() > overlayPeers;
    }

    /**
     * {@code node} is a member; {@code connected} when a connection to it is up already. Returns false, and
     * changes nothing, when it was known.
     */
    boolean joined(NodeInfo node, boolean connected) {
        if (members.containsKey(node.nodeId())) {
            return false;
        }
        former.remove(node.nodeId());
        members.put(node.nodeId(), node);
        if (!connected) {
            pendingSince.put(node.nodeId(), ticker.read());
        }
        return true;
    }

    /** {@code node} left the registry, or said it leaves the run. */
    void left(NodeInfo node) {
        if (members.remove(node.nodeId()) != null) {
            former.add(node.nodeId());
        }
        pendingSince.remove(node.nodeId());
    }

    /**
     * Whether {@code id}'s word (a vouch for a piece it read from S3) counts: it is a member, or it was one and left.
     * A node that left gracefully hands its share on, and the pieces it read and vouched for stay acceptable from
     * whoever took them, so they are not read from S3 again; a stranger that was never a member still does not count.
     */
    boolean trusted(String id) {
        return members.containsKey(id) || former.contains(id);
    }

    /** A connection to {@code id} is up: it is no longer waited for. */
    void connected(String id) {
        pendingSince.remove(id);
    }

    /** Members that have not connected within the connect grace are no longer waited for. */
    void expirePending() {
        long now = ticker.read();
        pendingSince.values().removeIf(since -> now - since > connectGraceNanos);
    }

    /**
     * Whether a member is still expected to connect: one has not connected yet within the connect grace (and, in
     * a bounded overlay, this node has fewer than {@code overlayPeers} peers).
     */
    boolean anyPending() {
        if (pendingSince.isEmpty()) {
            return false;
        }
        return !bounded() || peerCount.getAsInt() < overlayPeers;
    }

    boolean isMember(String id) {
        return members.containsKey(id);
    }

    /** The member {@code id}, or null. */
    NodeInfo get(String id) {
        return members.get(id);
    }

    /** The members by id (read-only, live). */
    Map<String, NodeInfo> members() {
        return membersView;
    }

    /** Members not connected yet, with when they became members (read-only, live). */
    Map<String, Long> pending() {
        return pendingView;
    }
}
