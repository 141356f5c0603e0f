package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.cluster.RendezvousShares;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With rendezvous shares ({@link RendezvousShares}: nodes began with no expected count, so their views of the
 * membership may differ), a member this node learns of after its share was fixed (from the registry, or because it
 * connected) takes its units back: of this node's unstarted works, those the newcomer owns among the members this
 * node knows are dropped from its list, so the two do not both read them. Nothing moves between members this node
 * knew already. Works already started are read by both (the duplicate cost of a late view; shares read heaviest unit
 * first keep it small, and a node that knew no other member reads through one connection until it learns of one,
 * {@link NarrowStart}); a newcomer that is gone leaves its units to the orphan rule. On the
 * run's loop only.
 */
final class ShareHandBack {

    private static final Logger LOG = LoggerFactory.getLogger(ShareHandBack.class);

    private final Supplier<String> self;
    private final int pieceCount;
    private final ShareFetcher phase1;
    /** The members this node's share is computed over; null when shares are by index (views agree). */
    private TreeSet<String> known;

    ShareHandBack(Supplier<String> self, int pieceCount, ShareFetcher phase1) {
        this.self = self;
        this.pieceCount = pieceCount;
        this.phase1 = phase1;
    }

    /** The share was fixed over {@code members}; {@code rendezvous}: by {@link RendezvousShares}, else by index. */
    void begin(Collection<String> members, boolean rendezvous) {
        if (rendezvous) {
            known = new TreeSet<>(members);
            known.add(self.get());
        }
    }

    /**
     * A peer announced {@code piece}: a one-piece unit of this node's share that holds it and is not started leaves
     * the list; the piece comes from the peer. This undoes what nodes read before they learned of each other (each
     * began owning more), which the other would otherwise read again.
     */
    void peerHas(int piece) {
        if (known != null) {
            drop(List.of(new PieceRun(piece, piece + 1)));
        }
    }

    /** A peer's {@code BITFIELD}: as {@link #peerHas(int)} for each piece it holds (read before it connected). */
    void peerHas(Bitfield pieces) {
        if (known == null) {
            return;
        }
        List<PieceRun> held = new ArrayList<>();
        for (int p = pieces.nextSet(0); p >= 0; p = pieces.nextSet(p + 1)) {
            held.add(new PieceRun(p, p + 1));
        }
        drop(held);
    }

    private void drop(List<PieceRun> works) {
        List<PieceRun> dropped = phase1.workList().removeUnstarted(works);
        if (!dropped.isEmpty()) {
            LOG.debug("{}: a peer holds {}: dropped", self.get(), dropped);
            phase1.advertiseWorks();
            phase1.pump();
        }
    }

    /** This node learned of member {@code id}: the unstarted works it owns leave this node's list. */
    void learned(String id) {
        if (known == null || !known.add(id)) {
            return;
        }
        phase1.notAlone();
        List<PieceRun> owned = RendezvousShares.ownedBy(id, phase1.workList().works(), pieceCount, known);
        List<PieceRun> dropped = phase1.workList().removeUnstarted(owned);
        if (!dropped.isEmpty()) {
            LOG.debug("{}: {} is a member too: {} of its works are its to read, not this node's: {}", self.get(), id,
                    dropped.size(), dropped);
            phase1.advertiseWorks();
            phase1.pump();
        }
    }
}
