package io.s3broadcast.spi.cluster;

import java.util.BitSet;
import java.util.Random;
import java.util.function.IntUnaryOperator;

/**
 * The order in which phase 2 requests pieces: given the pieces that may be requested from a peer now and
 * each piece's availability (how many connected peers hold it), picks the ones to request first.
 * {@link RequestScheduler} decides which pieces are candidates (not held, not in flight, held by the
 * peer); a selector only orders them. Implementations need not be thread-safe: the scheduler calls them
 * under its lock.
 */
public interface PieceSelector {

    /**
     * Up to {@code limit} pieces from {@code candidates}, best first. Must not modify {@code candidates}.
     *
     * @param availability piece to the number of connected peers that hold it
     */
    int[] select(BitSet candidates, IntUnaryOperator availability, int limit);

    /** Rarest first: fewest holders first, ties by lowest piece index. Deterministic. */
    static PieceSelector rarest() {
        return new RarestFirstSelector(null);
    }

    /**
     * Rarest first with a random start among equally rare pieces: pieces are grouped by availability,
     * rarest group first; within a group they are taken in piece order starting at a piece drawn from
     * {@code random} and wrapping around (so peers spread over the rarest pieces, and runs of consecutive
     * pieces stay together). Deterministic for a seeded {@code random}. Seed nodes differently and with
     * well-mixed seeds (a hash of the node id, not its index): {@link Random}'s first draws from nearby
     * seeds are nearly equal, and nodes that start at the same piece defeat the point.
     */
    static PieceSelector randomizedRarest(Random random) {
        return new RarestFirstSelector(java.util.Objects.requireNonNull(random, "random"));
    }
}
