package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.WorksLeft;

/**
 * A peer's claims about itself, checked against the pieces it announced before they are believed: {@code DONE}
 * (it holds every piece) and {@code WORKS_LEFT} (every work not completely stored lacks at least one piece). A
 * claim it cannot back is misbehaviour. On the run's loop only.
 */
final class PeerClaims {

    private final int pieceCount;
    private final PieceExchange exchange;
    private final ShareFetcher phase1;
    private final OrphanRule orphans;
    private final PieceExchange.Misbehaviour misbehaviour;
    private final Runnable peerDone;

    /** @param peerDone told after a peer's {@code DONE} was taken (phase 2 may open, lingering may end) */
    PeerClaims(int pieceCount, PieceExchange exchange, ShareFetcher phase1, OrphanRule orphans,
            PieceExchange.Misbehaviour misbehaviour, Runnable peerDone) {
        this.pieceCount = pieceCount;
        this.exchange = exchange;
        this.phase1 = phase1;
        this.orphans = orphans;
        this.misbehaviour = misbehaviour;
        this.peerDone = peerDone;
    }

    /** {@code p} says it holds every piece. */
    void done(Peer p) {
        if (p.has.cardinality() != pieceCount) {
            misbehaviour.misbehaved(p, "sent DONE holding " + p.has.cardinality() + " of " + pieceCount + " pieces");
            return;
        }
        p.done = true;
        p.worksLeft = 0;
        exchange.holdsAll(p, pieceCount);
        peerDone.run();
    }

    /** {@code p} says how many works it has left to fetch from S3. */
    void worksLeft(Peer p, WorksLeft w) {
        int missing = pieceCount - p.has.cardinality();
        if (w.works() > missing) {
            misbehaviour.misbehaved(p, "claims " + w.works() + " works left while it lacks only " + missing + " pieces");
            return;
        }
        p.worksLeft = w.works();
        if (w.works() > 0) {
            orphans.peerHasWork();
        }
        phase1.worksLeft(p.id, w.works());
    }
}
