package io.s3broadcast.spi.cluster;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;

/**
 * The endgame rule of {@link RequestScheduler}. Endgame holds when at least one piece is missing and every missing
 * piece is in flight: requested from some peer or taken by the S3 fetch ({@link SourcePieces#isInFlight}). Then,
 * once a peer's budget has room after ordinary candidates, duplicate requests are allowed: any missing piece the
 * peer holds and was not yet asked for, unless a peer it is asked of was measured at more than
 * 1 / {@value RequestScheduler#FASTER} of this peer's rate (on links alike a duplicate gains nothing: it only takes
 * its share of the download from the request it doubles); fewest outstanding requests first, then the piece whose
 * fastest requester delivers slowest (an unmeasured one counts as slowest), then in selector order. Not
 * thread-safe: the scheduler holds its lock.
 */
final class Endgame {

    private final int pieceCount;
    private final BitSet have;
    private final OutstandingRequests outstanding;
    private final SourcePieces source;
    private final PieceSelector selector;
    private final Availability availability;

    /**
     * @param have the pieces this node holds (the scheduler's, live)
     * @param availability what each peer holds, for the selector's order
     */
    Endgame(int pieceCount, BitSet have, OutstandingRequests outstanding, SourcePieces source,
            PieceSelector selector, Availability availability) {
        this.pieceCount = pieceCount;
        this.have = have;
        this.outstanding = outstanding;
        this.source = source;
        this.selector = selector;
        this.availability = availability;
    }

    /** At least one piece is missing and every missing piece is in flight, from a peer or from S3. */
    boolean holds() {
        int p = have.nextClearBit(0);
        if (p >= pieceCount) {
            return false;
        }
        for (; p < pieceCount; p = have.nextClearBit(p + 1)) {
            if (outstanding.count(p) == 0 && !source.isInFlight(p)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Up to {@code limit} pieces to ask {@code peer} for again, best first: the missing ones of {@code peerPieces}
     * not asked of it yet, where no requester is measured at more than 1 / {@value RequestScheduler#FASTER} of its
     * rate, in endgame order. The caller records them as outstanding.
     */
    int[] duplicates(String peer, BitSet peerPieces, int limit) {
        BitSet duplicates = (BitSet) peerPieces.clone();
        duplicates.andNot(have);
        duplicates.andNot(outstanding.of(peer));
        double[] requesterRate = outstanding.fastestRequester(duplicates);
        keepWhereFaster(peer, duplicates, requesterRate);
        return order(duplicates, requesterRate, limit);
    }

    /**
     * Drops from {@code duplicates} the pieces asked of a measured peer that {@code peer} is not at least
     * {@value RequestScheduler#FASTER} times as fast as: on links alike a duplicate only takes its share of this
     * node's download from the request it doubles (the bench's simulator: 0.28 S of duplicates per node and 1.51
     * instead of 1.25 T* at N = 100), while a piece asked of a slow peer, or of peers that delivered nothing yet, is
     * still asked again. {@code requesterRate}: each piece's fastest requester's rate
     * ({@code OutstandingRequests#fastestRequester}).
     */
    private void keepWhereFaster(String peer, BitSet duplicates, double[] requesterRate) {
        double rate = outstanding.measured(peer) ? outstanding.rate(peer) : 0;
        for (int p = duplicates.nextSetBit(0); p >= 0; p = duplicates.nextSetBit(p + 1)) {
            if (requesterRate[p] > 0 && rate < RequestScheduler.FASTER * requesterRate[p]) {
                duplicates.clear(p);
            }
        }
    }

    /**
     * Up to {@code limit} of {@code duplicates} to ask for again in endgame: fewest outstanding requests first,
     * then the piece whose fastest requester is slowest (the one likely to arrive last, {@code holderRate}), then
     * selector order.
     */
    private int[] order(BitSet duplicates, double[] holderRate, int limit) {
        int[] order = selector.select(duplicates, availability::count, duplicates.cardinality());
        Integer[] idx = new Integer[order.length];
        for (int i = 0; i < order.length; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, Comparator.<Integer>comparingInt(i -> outstanding.count(order[i]))
                .thenComparingDouble(i -> holderRate[order[i]])
                .thenComparingInt(i -> i));
        int[] out = new int[Math.min(limit, idx.length)];
        for (int i = 0; i < out.length; i++) {
            out[i] = order[idx[i]];
        }
        return out;
    }
}
