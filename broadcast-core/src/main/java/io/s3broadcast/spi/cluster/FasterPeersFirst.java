package io.s3broadcast.spi.cluster;

import java.util.BitSet;
import java.util.List;

/**
 * The rule of {@link RequestScheduler} that leaves the rarest pieces to faster peers: once rates are measured, a
 * peer that delivers at less than 1 / {@value RequestScheduler#FASTER} of the rate of another peer asks first for
 * the pieces no such faster peer holds, and only then (selector order again) for pieces a faster peer could send.
 * A peer with no faster peer known asks in plain selector order. Not thread-safe: the scheduler holds its lock.
 */
final class FasterPeersFirst {

    private final int pieceCount;
    private final OutstandingRequests outstanding;
    private final PieceSelector selector;
    private final Availability availability;

    /** @param outstanding the peers' measured rates; @param availability what each peer holds */
    FasterPeersFirst(int pieceCount, OutstandingRequests outstanding, PieceSelector selector,
            Availability availability) {
        this.pieceCount = pieceCount;
        this.outstanding = outstanding;
        this.selector = selector;
        this.availability = availability;
    }

    /**
     * Up to {@code limit} of {@code candidates} in selector order, except that when faster peers are known
     * (at least {@value RequestScheduler#FASTER} times {@code peer}'s measured rate) the pieces none of them holds
     * come first.
     */
    int[] select(String peer, BitSet candidates, int limit) {
        List<String> faster = outstanding.fasterThan(peer, RequestScheduler.FASTER);
        if (faster.isEmpty()) {
            return selector.select(candidates, availability::count, limit);
        }
        BitSet fasterHold = new BitSet(pieceCount);
        for (String f : faster) {
            fasterHold.or(availability.pieces(f));
        }
        BitSet onlyHere = (BitSet) candidates.clone();
        onlyHere.andNot(fasterHold);
        BitSet rest = (BitSet) candidates.clone();
        rest.and(fasterHold);
        CandidateOrder order = (some, n) -> selector.select(some, availability::count, n);
        return order.firstThenRest(onlyHere, rest, limit);
    }
}
