package io.s3broadcast.spi.cluster;

import java.util.Arrays;
import java.util.BitSet;

/**
 * An order of phase-2 candidates, as {@link RequestScheduler}'s rules compose them: picks up to {@code limit} of
 * {@code candidates}, best first, without modifying them.
 */
@FunctionalInterface
interface CandidateOrder {

    int[] select(BitSet candidates, int limit);

    /**
     * Up to {@code limit} pieces: {@code first} in this order, then, if the budget is not full, {@code rest} in this
     * order (the rules that put some candidates ahead of the others: {@code FasterPeersFirst}, {@code FrontWindow}).
     */
    default int[] firstThenRest(BitSet first, BitSet rest, int limit) {
        int[] a = select(first, limit);
        if (a.length == limit) {
            return a;
        }
        int[] b = select(rest, limit - a.length);
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
