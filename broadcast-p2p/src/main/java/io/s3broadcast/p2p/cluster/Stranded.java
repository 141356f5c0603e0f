package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Whether this node of a bounded overlay is cut off from what it misses: it waits for pieces from peers only (it is
 * not complete, its own phase 1 is over and every peer is out of works) and no peer holds a piece it lacks (every
 * peer's bitfield in), for {@link #STRANDED_NANOS}. The pieces it misses are then beyond its peers, and maybe beyond
 * every node its peers reach: a bounded overlay can fall apart into parts at the start. In {@code OverlayFetchIT} 12
 * nodes with three peers each split into four that had their three peers among themselves and eight others; no node
 * was short of peers, so none dialled out, each part found the other's pieces held by nobody, and the orphan rule read
 * them from S3 again (2.0 S; docs/results.md, session 49). A stranded node dials one member beyond its overlay ({@link
 * Dialer#reachOut}). The time is well under the orphan rule's quiet time ({@link OrphanRule#QUIET_NANOS}), so what
 * the new peer holds counts before the rule reads it. On the run's loop only; time is the injected ticker's.
 */
final class Stranded {

    /** How long the node must have nothing to ask of its peers before it reaches out. */
    static final long STRANDED_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<String, Peer> peers;
    private final BooleanSupplier bounded;
    private final BooleanSupplier waitsForPeers;
    private final Predicate<String> interesting;
    private final Ticker ticker;
    private long since = -1;

    /**
     * @param peers the run's connected peers, by id
     * @param bounded whether the overlay is bounded ({@link Membership#bounded})
     * @param waitsForPeers whether what this node lacks can only come from peers now: it is not complete, its own
     *     phase 1 is over and every peer is out of works
     * @param interesting whether peer {@code id} holds a piece this node lacks
     */
    Stranded(Map<String, Peer> peers, BooleanSupplier bounded, BooleanSupplier waitsForPeers,
            Predicate<String> interesting, Ticker ticker) {
        this.peers = peers;
        this.bounded = bounded;
        this.waitsForPeers = waitsForPeers;
        this.interesting = interesting;
        this.ticker = ticker;
    }

    /** Whether the node is stranded now (called every tick: the time counts from the first check that saw it). */
    boolean check() {
        if (!bounded.getAsBoolean() || !waitsForPeers.getAsBoolean() || anyPeerMayHelp()) {
            since = -1;
            return false;
        }
        long now = ticker.read();
        if (since < 0) {
            since = now;
        }
        return now - since >= STRANDED_NANOS;
    }

    /** A peer holds a piece this node lacks, or may (its bitfield is yet to come: a peer just taken). */
    private boolean anyPeerMayHelp() {
        for (Peer p : peers.values()) {
            if (!p.bitfieldReceived || interesting.test(p.id)) {
                return true;
            }
        }
        return false;
    }
}
