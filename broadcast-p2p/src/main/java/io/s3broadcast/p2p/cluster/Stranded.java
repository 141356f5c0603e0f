package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node of a bounded overlay is cut off from what it misses: it waits for pieces from peers only (it is
 * not complete, its own phase 1 is over and every peer is out of works) and no peer holds a piece it lacks (every
 * peer's bitfield in), for {@link #STRANDED_NANOS}. The pieces it misses are then beyond its peers, and maybe beyond
 * every node its peers reach: a bounded overlay can fall apart into parts at the start. In {@code OverlayFetchIT} 12
 * nodes with three peers each split into four that had their three peers among themselves and eight others; no node
 * was short of peers, so none dialled out, each part found the other's pieces held by nobody, and the orphan rule read
 * them from S3 again (2.0 S; docs/results.md, session 49). A stranded node dials one member beyond its overlay ({@link
 * Dialer#reachOut}). The time is well under the orphan rule's quiet time ({@link OrphanRule#QUIET_NANOS}), so what
 * the new peer holds counts before the rule reads it. Logged once each time it becomes stranded. On the run's loop
 * only; time is the injected ticker's.
 */
final class Stranded {

    private static final Logger LOG = LoggerFactory.getLogger(Stranded.class);

    /** How long the node must have nothing to ask of its peers before it reaches out. */
    static final long STRANDED_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<String, Peer> peers;
    private final BooleanSupplier bounded;
    private final BooleanSupplier waitsForPeers;
    private final Predicate<String> interesting;
    private final Ticker ticker;
    private final Supplier<String> self;
    private long since = -1;
    private boolean told;

    /**
     * @param peers the run's connected peers, by id
     * @param bounded whether the overlay is bounded ({@link Membership#bounded})
     * @param waitsForPeers whether what this node lacks can only come from peers now: it is not complete, its own
     *     phase 1 is over and every peer is out of works
     * @param interesting whether peer {@code id} holds a piece this node lacks
     * @param self this node's id, for the log
     */
    Stranded(Map<String, Peer> peers, BooleanSupplier bounded, BooleanSupplier waitsForPeers,
            Predicate<String> interesting, Ticker ticker, Supplier<String> self) {
        this.peers = peers;
        this.bounded = bounded;
        this.waitsForPeers = waitsForPeers;
        this.interesting = interesting;
        this.ticker = ticker;
        this.self = self;
    }

    /** Whether the node is stranded now (called every tick: the time counts from the first check that saw it). */
    boolean check() {
        if (!bounded.getAsBoolean() || !waitsForPeers.getAsBoolean() || anyPeerMayHelp()) {
            since = -1;
            told = false;
            return false;
        }
        long now = ticker.read();
        if (since < 0) {
            since = now;
        }
        if (now - since < STRANDED_NANOS) {
            return false;
        }
        if (!told) {
            told = true;
            LOG.info("{}: stranded: none of its {} peers holds a piece it lacks; it dials members beyond its overlay",
                    self.get(), peers.size());
        }
        return true;
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
