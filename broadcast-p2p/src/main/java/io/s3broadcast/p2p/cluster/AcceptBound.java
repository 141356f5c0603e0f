package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * How many peers this node takes ({@link Connections}): never more than {@code acceptPeers}; in a bounded overlay a
 * member's first dial only while this node has fewer than {@code overlayPeers} peers, and a member it refused that
 * dials again within {@link Dialer#REFUSED_MILLIS} up to {@code acceptPeers}. A dialler dials again only when it is
 * short of peers and has no other member left to dial, or when no peer of its holds a piece it lacks ({@link
 * Stranded}; {@link Dialer}), so the overlay's degrees stay near {@code overlayPeers} (every node's upload is shared
 * by about as many peers as every other's) and a node left short when nearly every member has its overlay still gets
 * its peers. With the accept bound for every dial, the first dials
 * spread the degrees from half the overlay to {@code acceptPeers} (16 to 20 after the refill at 1,000 nodes): a node
 * whose peers had 20 peers each got less of each and was the slowest (docs/scale.md, "N = 1,000 (session 23)").
 * Connections this node dialled count against {@code acceptPeers} only. A full mesh takes every dial up to {@code
 * acceptPeers}, as before. On the run's loop only.
 */
final class AcceptBound {

    private static final long REMEMBERED_NANOS = TimeUnit.MILLISECONDS.toNanos(Dialer.REFUSED_MILLIS);

    private final int overlayPeers;
    private final int acceptPeers;
    private final BooleanSupplier bounded;
    private final Ticker ticker;
    /** Members this node refused for having its overlay, and when: a second dial within the window is taken. */
    private final Map<String, Long> refused = new HashMap<>();

    /** @param bounded whether the overlay is bounded (more members than {@code overlayPeers + 1}) */
    AcceptBound(int overlayPeers, int acceptPeers, BooleanSupplier bounded, Ticker ticker) {
        if (overlayPeers <= 0 || acceptPeers < overlayPeers) {
            throw new IllegalArgumentException("0 < overlayPeers <= acceptPeers needed: " + overlayPeers + ", "
                    + acceptPeers);
        }
        this.overlayPeers = overlayPeers;
        this.acceptPeers = acceptPeers;
        this.bounded = bounded;
        this.ticker = ticker;
    }

    /**
     * Whether this node, with {@code peers} peers, takes member {@code id}'s connection; {@code dialled}: this node
     * dialled it. A refusal of an inbound first dial is remembered for {@link Dialer#REFUSED_MILLIS}.
     */
    boolean accepts(String id, int peers, boolean dialled) {
        if (peers >= acceptPeers) {
            return false;
        }
        if (dialled || peers < overlayPeers || !bounded.getAsBoolean()) {
            return true;
        }
        long now = ticker.read();
        refused.values().removeIf(at -> now - at >= REMEMBERED_NANOS);
        if (refused.remove(id) != null) {
            return true; // it dials again: short of peers with nobody else to dial, or stranded
        }
        refused.put(id, now);
        return false;
    }
}
