package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.Done;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.Bitfield;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * What a new peer hears first (protocol.md, the exchange): the {@code BITFIELD} of the pieces this node has
 * announced ({@link PieceStored#announced()}), which must come first; right after it this node's first-hand {@code
 * DIGESTS} (a peer asks only for pieces it has a digest of), in runs that fit the peer's frame limit; once phase 1
 * has begun, {@code WORKS_LEFT}, agreeing with the bitfield (the peer checks one against the other); {@code DONE} if
 * this node is complete. A piece on disk whose {@code stored} is still queued is in none of them: it is announced to
 * this peer with the others when it runs, {@code DIGESTS} and {@code HAVE} before the works left drop. Its choke
 * state is the default (choked) until the next choking round. On the run's loop only.
 */
final class PeerGreeting {

    private final Supplier<Bitfield> have;
    private final ShareFetcher phase1;
    private final IntFunction<List<Digests>> ownDigests;
    private final BooleanSupplier complete;

    /**
     * @param have the pieces announced (every one counted off the work list already)
     * @param ownDigests this node's first-hand digests, in messages of at most the given frame length
     * @param complete whether this node holds every piece
     */
    PeerGreeting(Supplier<Bitfield> have, ShareFetcher phase1, IntFunction<List<Digests>> ownDigests,
            BooleanSupplier complete) {
        this.have = have;
        this.phase1 = phase1;
        this.ownDigests = ownDigests;
        this.complete = complete;
    }

    /** Greets the peer on {@code link}, which just completed its handshake. */
    void greet(PeerLink link) {
        link.write(BitfieldMessage.of(have.get()));
        for (Digests d : ownDigests.apply(link.maxFrameLength())) {
            link.write(d);
        }
        if (phase1.begun()) {
            link.write(new WorksLeft(phase1.worksLeft()));
        }
        if (complete.getAsBoolean()) {
            link.write(Done.INSTANCE);
        }
        link.flush();
    }
}
