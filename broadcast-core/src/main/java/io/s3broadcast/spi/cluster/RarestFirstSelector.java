package io.s3broadcast.spi.cluster;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Random;
import java.util.function.IntUnaryOperator;

/** {@link PieceSelector#rarest()} and, with a random, {@link PieceSelector#randomizedRarest(Random)}. */
final class RarestFirstSelector implements PieceSelector {

    private final Random random;

    RarestFirstSelector(Random random) {
        this.random = random;
    }

    @Override
    public int[] select(BitSet candidates, IntUnaryOperator availability, int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, was " + limit);
        }
        int n = candidates.cardinality();
        if (n == 0 || limit == 0) {
            return new int[0];
        }
        // availability in the high half, piece in the low half: sorting orders by rarity, then piece.
        long[] keys = new long[n];
        int k = 0;
        for (int p = candidates.nextSetBit(0); p >= 0; p = candidates.nextSetBit(p + 1)) {
            keys[k++] = ((long) availability.applyAsInt(p) << 32) | p;
        }
        Arrays.sort(keys);
        int[] out = new int[Math.min(limit, n)];
        int filled = 0;
        int groupStart = 0;
        while (filled < out.length) {
            int count = (int) (keys[groupStart] >>> 32);
            int groupEnd = groupStart + 1;
            while (groupEnd < n && (int) (keys[groupEnd] >>> 32) == count) {
                groupEnd++;
            }
            int size = groupEnd - groupStart;
            int offset = random == null || size == 1 ? 0 : random.nextInt(size);
            for (int i = 0; i < size && filled < out.length; i++) {
                out[filled++] = (int) keys[groupStart + (offset + i) % size];
            }
            groupStart = groupEnd;
        }
        return out;
    }

    @Override
    public String toString() {
        return random == null ? "rarest" : "randomizedRarest";
    }
}
