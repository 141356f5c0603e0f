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
 * What a new peer hears first (protocol.md, the exchange): the {@code BITFIELD} of the pieces on disk, which must
 * come first; right after it this node's first-hand {@code DIGESTS} (a peer asks only for pieces it has a digest
 * of), in runs that fit the peer's frame limit; once phase 1 has begun, {@code WORKS_LEFT}, agreeing with the
 * bitfield (the peer checks one against the other); {@code DONE} if this node is complete. Its choke state is the
 * default (choked) until the next choking round. On the run's loop only.
 */
final class PeerGreeting {

    private final Supplier<Bitfield> have;
    private final ShareFetcher phase1;
    private final IntFunction<List<Digests>> ownDigests;
    private final BooleanSupplier complete;

    /**
     * @param have the pieces on disk
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
        Bitfield bits = have.get();
        if (phase1.begun()) {
            // Pieces already on disk whose stored() has not run yet: mark them in the work list now, so the
            // WORKS_LEFT below agrees with the BITFIELD.
            for (int piece = bits.nextSet(0); piece >= 0; piece = bits.nextSet(piece + 1)) {
                phase1.workList().pieceStored(piece);
            }
        }
        link.write(BitfieldMessage.of(bits));
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
