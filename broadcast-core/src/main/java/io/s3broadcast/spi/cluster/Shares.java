package io.s3broadcast.spi.cluster;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.List;

/**
 * How the pieces of an object are shared out among the nodes for phase 1, as in the paper: of {@code P}
 * pieces and {@code N} nodes, node {@code i} reads pieces {@code [iP/N, (i+1)P/N)} (integer division), so
 * shares are disjoint, cover every piece, are in node order and differ in size by at most one piece. With
 * {@code P < N} some nodes get an empty share; with {@code P = 0} all do. For the steal algorithm a share is
 * cut into works of {@code workSize} pieces; works never span two shares.
 *
 * <p>Every node computes the same shares from the same {@code (P, N)} and its index in an order all nodes
 * agree on (the lead wires that, e.g. members sorted by node id).
 */
public final class Shares {

    private Shares() {
    }

    /** First piece of node {@code index}'s share. */
    public static int first(int pieceCount, int nodes, int index) {
        check(pieceCount, nodes, index);
        return (int) ((long) index * pieceCount / nodes);
    }

    /** End (exclusive) of node {@code index}'s share; equal to {@link #first} when the share is empty. */
    public static int end(int pieceCount, int nodes, int index) {
        check(pieceCount, nodes, index);
        return (int) ((long) (index + 1) * pieceCount / nodes);
    }

    /** Node {@code index}'s share cut into works of {@code workSize} pieces, in piece order; empty for an empty share. */
    public static List<PieceRun> works(int pieceCount, int nodes, int index, int workSize) {
        return cut(first(pieceCount, nodes, index), end(pieceCount, nodes, index), workSize);
    }

    /** Pieces {@code [first, end)} cut into works of {@code workSize} pieces; the last may be shorter. */
    public static List<PieceRun> cut(int first, int end, int workSize) {
        if (workSize <= 0) {
            throw new IllegalArgumentException("workSize must be > 0, was " + workSize);
        }
        if (first < 0 || end < first) {
            throw new IllegalArgumentException("bad piece range [" + first + ", " + end + ")");
        }
        List<PieceRun> works = new ArrayList<>((int) (((long) end - first + workSize - 1) / workSize));
        for (int p = first; p < end; ) {
            int e = (int) Math.min((long) p + workSize, end);
            works.add(new PieceRun(p, e));
            p = e;
        }
        return works;
    }

    /**
     * Reassigns a dead node's unfinished work: the pieces set in {@code assignedToDead} (what the dead node
     * was last known to be responsible for) and not set in {@code presentSomewhere} (pieces some live node
     * holds, or has in flight, or has queued) are shared out among {@code survivors} nodes like a share:
     * survivor {@code j} gets the orphaned pieces of rank {@code [jM/S, (j+1)M/S)} in piece order, where
     * {@code M} is their number, cut into works of at most {@code workSize} consecutive pieces (a work never
     * spans a gap). The result has one list per survivor, in survivor order, possibly empty.
     *
     * <p>A pure function: survivors that feed it the same inputs and agree on their order compute the
     * same assignment without talking to each other. Inputs that disagree cost duplicate S3 reads at worst,
     * never a lost piece, as long as every survivor's {@code assignedToDead} covers the truth.
     */
    public static List<List<PieceRun>> reassign(Bitfield assignedToDead, Bitfield presentSomewhere, int survivors,
            int workSize) {
        if (assignedToDead.size() != presentSomewhere.size()) {
            throw new IllegalArgumentException("bitfields of " + assignedToDead.size() + " and "
                    + presentSomewhere.size() + " pieces");
        }
        if (survivors <= 0) {
            throw new IllegalArgumentException("survivors must be > 0, was " + survivors);
        }
        if (workSize <= 0) {
            throw new IllegalArgumentException("workSize must be > 0, was " + workSize);
        }
        int[] orphans = new int[assignedToDead.cardinality()];
        int m = 0;
        for (int p = assignedToDead.nextSet(0); p >= 0; p = assignedToDead.nextSet(p + 1)) {
            if (!presentSomewhere.get(p)) {
                orphans[m++] = p;
            }
        }
        List<List<PieceRun>> out = new ArrayList<>(survivors);
        for (int j = 0; j < survivors; j++) {
            int from = (int) ((long) j * m / survivors);
            int to = (int) ((long) (j + 1) * m / survivors);
            List<PieceRun> works = new ArrayList<>();
            int i = from;
            while (i < to) {
                int start = orphans[i];
                int n = 1;
                while (i + n < to && n < workSize && orphans[i + n] == start + n) {
                    n++;
                }
                works.add(new PieceRun(start, start + n));
                i += n;
            }
            out.add(works);
        }
        return out;
    }

    private static void check(int pieceCount, int nodes, int index) {
        if (pieceCount < 0) {
            throw new IllegalArgumentException("pieceCount must be >= 0, was " + pieceCount);
        }
        if (nodes <= 0) {
            throw new IllegalArgumentException("nodes must be > 0, was " + nodes);
        }
        if (index < 0 || index >= nodes) {
            throw new IndexOutOfBoundsException("node index " + index + " outside [0, " + nodes + ")");
        }
    }
}
