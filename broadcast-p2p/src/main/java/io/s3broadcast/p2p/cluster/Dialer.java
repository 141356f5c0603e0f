package io.s3broadcast.p2p.cluster;

import io.s3broadcast.registry.NodeInfo;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Who dials whom, and again: of each pair of members the one with the smaller node id dials, so a pair has one
 * connection; a failed dial, or a lost connection to a peer that was not done, is dialled again after a delay
 * that doubles from 100 ms up to {@link #MAX_REDIAL_MILLIS}, while the node is still a member and not banned.
 * On the run's loop only; delays run on the injected scheduler.
 */
final class Dialer {

    static final long MAX_REDIAL_MILLIS = 2_000;

    /** Opens a connection to a member; calls {@code failed} on the run's loop if it cannot. */
    @FunctionalInterface
    interface Connector {
        void connect(NodeInfo node, Runnable failed);
    }

    private final Supplier<String> self;
    private final Membership membership;
    private final Map<String, Peer> peers;
    private final Predicate<String> banned;
    private final ScheduledExecutorService loop;
    private final Connector connector;
    private final BooleanSupplier closing;
    private final BooleanSupplier noNeed;
    private final Set<String> dialing = new HashSet<>();
    private final Map<String, Integer> attempts = new HashMap<>();

    /**
     * @param self this node's id (known once registered)
     * @param banned peers not to dial
     * @param closing whether the run is closing: nothing is dialled
     * @param noNeed whether the run needs no more connections (it is complete and every peer is done): no redial
     */
    Dialer(Supplier<String> self, Membership membership, Map<String, Peer> peers, Predicate<String> banned,
            ScheduledExecutorService loop, Connector connector, BooleanSupplier closing, BooleanSupplier noNeed) {
        this.self = self;
        this.membership = membership;
        this.peers = peers;
        this.banned = banned;
        this.loop = loop;
        this.connector = connector;
        this.closing = closing;
        this.noNeed = noNeed;
    }

    /** {@code node} became a member: dialled if this node's id is the smaller. */
    void memberJoined(NodeInfo node) {
        if (self.get().compareTo(node.nodeId()) < 0) {
            dial(node);
        }
    }

    /** Dials {@code node} unless connected, being dialled, banned or no longer a member. */
    void dial(NodeInfo node) {
        String id = node.nodeId();
        if (closing.getAsBoolean() || banned.test(id) || peers.containsKey(id) || dialing.contains(id)
                || !membership.isMember(id)) {
            return;
        }
        dialing.add(id);
        connector.connect(node, () -> redial(node));
    }

    private void redial(NodeInfo node) {
        dialing.remove(node.nodeId());
        if (closing.getAsBoolean() || noNeed.getAsBoolean() || banned.test(node.nodeId())
                || peers.containsKey(node.nodeId())) {
            return;
        }
        int attempt = attempts.merge(node.nodeId(), 1, Integer::sum);
        long delay = Math.min(MAX_REDIAL_MILLIS, 50L << Math.min(attempt, 10));
        loop.schedule(() -> {
            NodeInfo current = membership.get(node.nodeId());
            if (current != null) {
                dial(current);
            }
        }, delay, TimeUnit.MILLISECONDS);
    }

    /** A connection this node dialled to {@code dialed} (null if inbound) completed its handshake. */
    void handshaken(NodeInfo dialed) {
        if (dialed != null) {
            dialing.remove(dialed.nodeId());
        }
    }

    /** Peer {@code id} was taken: dials to it start again from the shortest delay. */
    void connected(String id) {
        attempts.remove(id);
    }

    /** A connection to {@code dialed} closed before it became a peer: dialled again if still wanted. */
    void connectionClosed(NodeInfo dialed) {
        if (dialed != null && dialing.contains(dialed.nodeId())) {
            redial(dialed);
        }
    }

    /** Peer {@code id} was lost ({@code done}: after it said it was done): dialled again if this node dials it. */
    void peerLost(String id, boolean done) {
        NodeInfo member = membership.get(id);
        if (member != null && self.get().compareTo(id) < 0 && !done) {
            dialing.add(id);
            redial(member);
        }
    }

    /** Whether a dial to {@code id} is under way or due. */
    boolean isDialing(String id) {
        return dialing.contains(id);
    }
}
