package io.s3broadcast.p2p.cluster;

import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The overlay's arithmetic for the {@link Dialer}: how many peers this node still wants, and how many of its
 * connections it dials itself. Peers count towards the overlay while they are not done (all of them once this node
 * is complete). In a full mesh a node dials every member it is the dialler of; in a bounded overlay half its
 * overlay, since the other half dials it, and the whole overlay once it has been short of peers for the grace.
 *
 * <p>On the run's loop only.
 */
final class OverlayQuota {

    private final Dialer.Shape shape;
    private final Membership membership;
    private final Map<String, Peer> peers;
    private final BooleanSupplier complete;
    private long shortSince = -1;

    /**
     * @param peers this node's peers (read, not changed)
     * @param complete whether this node holds every piece: then done peers count towards its overlay too
     */
    OverlayQuota(Dialer.Shape shape, Membership membership, Map<String, Peer> peers, BooleanSupplier complete) {
        this.shape = shape;
        this.membership = membership;
        this.peers = peers;
        this.complete = complete;
    }

    /** Peers still to dial, with {@code dialing} dials under way: the overlay's size less those and the counted. */
    int wanted(int dialing) {
        return shape.overlayPeers() - dialing - counted(null);
    }

    /** Connections {@code me} dialled that count: {@code dialing} dials under way and counted peers it dialled. */
    int outbound(String me, int dialing) {
        return dialing + counted(me);
    }

    /**
     * The most connections {@code me} dials itself: all it wants in a full mesh; in a bounded overlay half the
     * overlay (each node is the dialler of about half the pairs, so the other half dials it: about {@code
     * overlayPeers} in all, not twice as many of which the accept bound refuses half), and the whole overlay once
     * it has been short of peers for the grace time. The grace starts at the first call that finds it short.
     */
    int outboundCap(String me) {
        if (!membership.bounded()) {
            return Integer.MAX_VALUE;
        }
        int half = (shape.overlayPeers() + 1) / 2;
        if (counted(null) >= shape.overlayPeers()) {
            shortSince = -1;
            return half;
        }
        long now = shape.ticker().read();
        if (shortSince < 0) {
            shortSince = now;
        }
        return now - shortSince >= shape.graceNanos() ? shape.overlayPeers() : half;
    }

    /**
     * Whether this node, out of members to dial, dials again those that refused it (each once): in a bounded overlay
     * once it has been short of peers for the grace ({@code cap}, from {@link #outboundCap}, is the whole overlay). A
     * member with {@code overlayPeers} peers refuses a member's first dial and takes one that dials again, up to
     * {@code acceptPeers} ({@code AcceptBound}), so the overlay's degrees stay near {@code overlayPeers} and a node
     * left short when nearly all have their overlay still gets its peers.
     */
    boolean mayInsist(int cap) {
        return membership.bounded() && cap >= shape.overlayPeers();
    }

    /**
     * Peers that count towards the overlay (all once this node is complete, else those not done); with {@code
     * dialler}, only those {@code dialler} dialled.
     */
    private int counted(String dialler) {
        boolean all = complete.getAsBoolean();
        int n = 0;
        for (Peer p : peers.values()) {
            if ((all || !p.done) && (dialler == null || DialPairs.dials(dialler, p.id))) {
                n++;
            }
        }
        return n;
    }
}
