package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.registry.NodeInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The overlay: whom this node dials, and again. Of each pair of members one is the dialler, fixed by a hash of
 * the two ids ({@link DialPairs}), so a pair has at most one connection and two nodes never dial each other at once.
 * A node dials members it is the dialler of, at random (members whose link measured fast, when it was a peer
 * before, are more likely: {@link FasterLinksFirst}), until it has {@code overlayPeers} peers that are not done
 * (while it is not complete; all its peers once it is), counting dials under way, and never more than {@code
 * acceptPeers} connections in all. With at most {@code overlayPeers + 1} members every pair is connected (a full
 * mesh); above, a node dials half its overlay and lets the other half dial it ({@link OverlayQuota}), so it ends
 * with about {@code overlayPeers} peers, at most {@code acceptPeers}, the rest of the group reached through them. A
 * member with {@code overlayPeers} peers refuses a first dial ({@code AcceptBound}); a node short of peers for the
 * grace that has no member left to dial dials those that refused it once more, and they take it. A node {@link
 * Stranded} (no peer holds a piece it lacks) dials members beyond its overlay, one at a time ({@link #reachOut}).
 *
 * <p>The overlay refills ({@link #fill}) when a member joins, a peer is lost (it is rested for a delay that
 * doubles from 100 ms up to {@link #MAX_REDIAL_MILLIS}, then may be picked again: in a full mesh it is the only
 * one to pick), a dial fails (the same delay), a member refuses for having too many peers (rested for {@link
 * #REFUSED_MILLIS}), a peer says it is done while this node is not (it needs nothing from this node: another
 * member is dialled beside it), and on every housekeeping tick. A peer lost after it was done is not dialled
 * again. Nothing is dialled while the run is closing, or once it is complete, every peer is done and no member is
 * still expected to connect: a member that was down when first dialled is dialled again after this node is complete.
 *
 * <p>On the run's loop only; delays run on the injected scheduler ({@link Redials} keeps who rests).
 */
final class Dialer {

    static final long MAX_REDIAL_MILLIS = 2_000;
    /**
     * How long a node of a bounded overlay waits for the other half of its peers to dial it before it dials them
     * itself. Each node dials half its overlay and is dialled about as often, so a node's peers at the start spread
     * from about half the overlay to the accept bound; at 5 s (the connect grace, as before) the nodes left short took
     * half their share or less for most of a 1,000-node broadcast (docs/scale.md, "N = 1,000 (session 21)").
     */
    static final long SHORT_OF_PEERS_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A member that refused this node for having too many peers is not dialled again for this long. */
    static final long REFUSED_MILLIS = 10_000;

    /** Opens a connection to a member; calls {@code failed} on the run's loop if it cannot. */
    @FunctionalInterface
    interface Connector {
        void connect(NodeInfo node, Runnable failed);
    }

    /**
     * How many peers this node wants: {@code overlayPeers}, at most {@code acceptPeers} in all; in a bounded
     * overlay it dials half of them and waits for the other half to dial it, for up to {@code graceNanos} of
     * {@code ticker} time (then it dials them too). Picks with {@code random}.
     */
    record Shape(int overlayPeers, int acceptPeers, Random random, Ticker ticker, long graceNanos) {
        Shape {
            if (overlayPeers <= 0 || acceptPeers < overlayPeers) {
                throw new IllegalArgumentException("0 < overlayPeers <= acceptPeers needed: " + overlayPeers + ", "
                        + acceptPeers);
            }
        }
    }

    private final Supplier<String> self;
    private final Membership membership;
    private final Map<String, Peer> peers;
    private final Predicate<String> banned;
    private final Connector connector;
    private final BooleanSupplier closing;
    private final BooleanSupplier noNeed;
    private final Shape shape;
    private final Set<String> dialing = new HashSet<>();
    private final Redials redials;
    private final Set<String> finished = new HashSet<>();
    private final FasterLinksFirst picks;
    private final OverlayQuota quota;

    /**
     * @param self this node's id (known once registered)
     * @param banned peers not to dial
     * @param closing whether the run is closing: nothing is dialled
     * @param complete whether this node holds every piece: then done peers count towards its overlay too
     * @param noNeed whether the run needs no more connections (it is complete, every peer is done and no member is
     *     still expected to connect): no dial
     */
    Dialer(Supplier<String> self, Membership membership, Map<String, Peer> peers, Predicate<String> banned,
            ScheduledExecutorService loop, Connector connector, BooleanSupplier closing, BooleanSupplier complete,
            BooleanSupplier noNeed, Shape shape) {
        this.self = self;
        this.membership = membership;
        this.peers = peers;
        this.banned = banned;
        this.connector = connector;
        this.closing = closing;
        this.noNeed = noNeed;
        this.shape = shape;
        this.redials = new Redials(loop, this::fill);
        this.picks = new FasterLinksFirst(shape.random());
        this.quota = new OverlayQuota(shape, membership, peers, complete);
    }

    /** {@code node} became a member: the overlay fills up (it may be dialled). */
    void memberJoined(NodeInfo node) {
        fill();
    }

    /** Dials members until the overlay has its peers, or no member is left to dial ({@link Dialer}). */
    void fill() {
        if (closing.getAsBoolean() || noNeed.getAsBoolean()) {
            return;
        }
        String me = self.get();
        List<String> candidates = null;
        int cap = quota.outboundCap(me);
        boolean insist = false;
        while (quota.wanted(dialing.size()) > 0 && peers.size() + dialing.size() < shape.acceptPeers()
                && quota.outbound(me, dialing.size()) < cap) {
            if (candidates == null) {
                candidates = candidates(me);
                if (candidates.isEmpty() && quota.mayInsist(cap)) {
                    candidates = refusers(me);
                    insist = true;
                }
            }
            if (candidates.isEmpty()) {
                return;
            }
            String pick = picks.pick(candidates);
            candidates.remove(pick);
            dial(pick, insist);
        }
    }

    /**
     * This node is {@link Stranded}: no peer holds a piece it lacks. Dials one member beyond the overlay (none while a
     * dial is under way, and never past {@code acceptPeers}): first one that refused it for having its overlay, which
     * takes a second dial ({@code AcceptBound}), else any it may dial. Called on every tick while stranded, so the
     * refusal of the first dial is followed by the second a tick later.
     */
    void reachOut() {
        if (closing.getAsBoolean() || noNeed.getAsBoolean() || !dialing.isEmpty()
                || peers.size() >= shape.acceptPeers()) {
            return;
        }
        String me = self.get();
        List<String> candidates = refusers(me);
        boolean insist = !candidates.isEmpty();
        if (!insist) {
            candidates = candidates(me);
        }
        if (!candidates.isEmpty()) {
            dial(picks.pick(candidates), insist);
        }
    }

    private void dial(String id, boolean insist) {
        if (insist) {
            redials.insisting(id);
        }
        dialing.add(id);
        NodeInfo node = membership.get(id);
        connector.connect(node, () -> dialFailed(node));
    }

    /** Members that refused this node and may be dialled once more ({@link Redials#mayInsist}). */
    private List<String> refusers(String me) {
        return dialable(me, redials::mayInsist);
    }

    private List<String> candidates(String me) {
        return dialable(me, id -> !redials.resting(id));
    }

    /**
     * Members this node is the dialler of that are neither peers, dialled, done nor banned, and that {@code may}
     * be dialled now.
     */
    private List<String> dialable(String me, Predicate<String> may) {
        List<String> out = new ArrayList<>();
        for (String id : membership.members().keySet()) {
            if (!id.equals(me) && DialPairs.dials(me, id) && !peers.containsKey(id) && !dialing.contains(id)
                    && may.test(id) && !finished.contains(id) && !banned.test(id)) {
                out.add(id);
            }
        }
        return out;
    }

    private void dialFailed(NodeInfo node) {
        dialing.remove(node.nodeId());
        redials.failed(node.nodeId());
        fill();
    }

    /** A connection this node dialled to {@code dialed} (null if inbound) completed its handshake. */
    void handshaken(NodeInfo dialed) {
        if (dialed != null) {
            dialing.remove(dialed.nodeId());
        }
    }

    /** Peer {@code id} was taken: dials to it start again from the shortest delay. */
    void connected(String id) {
        redials.connected(id);
    }

    /** A connection to {@code dialed} closed before it became a peer: the dial failed. */
    void connectionClosed(NodeInfo dialed) {
        if (dialed != null && dialing.contains(dialed.nodeId())) {
            dialFailed(dialed);
        }
    }

    /** Member {@code id} refused this node for having too many peers: it is rested for {@link #REFUSED_MILLIS}. */
    void refused(String id) {
        redials.refused(id);
    }

    /** Whether member {@code id} refused this node for having too many peers within {@link #REFUSED_MILLIS}. */
    boolean refusedBy(String id) {
        return redials.refusedBy(id);
    }

    /**
     * Peer {@code id} was lost ({@code done}: after it said it was done, so it is not dialled again), its link
     * having delivered {@code rate} bytes per second: another member is dialled in its place.
     */
    void peerLost(String id, boolean done, double rate) {
        picks.measured(id, rate);
        if (done) {
            finished.add(id);
        } else if (membership.isMember(id) && DialPairs.dials(self.get(), id)) {
            redials.failed(id);
        }
        fill();
    }

    /** Whether a dial to {@code id} is under way. */
    boolean isDialing(String id) {
        return dialing.contains(id);
    }
}
