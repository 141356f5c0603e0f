package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PieceSelectorTest {

    //                             piece: 0  1  2  3  4  5  6  7  8  9
    private static final int[] COUNTS = {3, 1, 2, 1, 3, 1, 2, 1, 5, 2};

    @Test
    void rarestOrdersByAvailabilityThenPiece() {
        BitSet all = range(0, 10);
        assertThat(PieceSelector.rarest().select(all, p -> COUNTS[p], 10))
                .containsExactly(1, 3, 5, 7, 2, 6, 9, 0, 4, 8);
        assertThat(PieceSelector.rarest().select(all, p -> COUNTS[p], 3)).containsExactly(1, 3, 5);
        assertThat(all.cardinality()).isEqualTo(10);
    }

    @Test
    void onlyCandidatesAreSelected() {
        BitSet some = new BitSet();
        some.set(0);
        some.set(8);
        some.set(9);
        assertThat(PieceSelector.rarest().select(some, p -> COUNTS[p], 10)).containsExactly(9, 0, 8);
        assertThat(PieceSelector.rarest().select(new BitSet(), p -> COUNTS[p], 10)).isEmpty();
        assertThat(PieceSelector.rarest().select(some, p -> COUNTS[p], 0)).isEmpty();
    }

    @Test
    void randomizedRarestStartsAtARandomPieceAmongTheEquallyRare() {
        Set<Integer> starts = new HashSet<>();
        for (long i = 0; i < 40; i++) {
            // java.util.Random's first draw barely differs between nearby seeds: spread them.
            long seed = i * 0x9E3779B97F4A7C15L;
            int[] order = PieceSelector.randomizedRarest(new Random(seed)).select(range(0, 10), p -> COUNTS[p], 10);
            // Same seed, same order.
            assertThat(PieceSelector.randomizedRarest(new Random(seed)).select(range(0, 10), p -> COUNTS[p], 10))
                    .containsExactly(order);
            // Rarest group first, each group a rotation of its pieces in piece order.
            assertThat(rotationOf(slice(order, 0, 4), List.of(1, 3, 5, 7))).isTrue();
            assertThat(rotationOf(slice(order, 4, 7), List.of(2, 6, 9))).isTrue();
            assertThat(rotationOf(slice(order, 7, 9), List.of(0, 4))).isTrue();
            assertThat(order[9]).isEqualTo(8);
            starts.add(order[0]);
        }
        assertThat(starts).containsExactlyInAnyOrder(1, 3, 5, 7);
    }

    @Test
    void randomizedRarestWithALimitTakesFromTheRarestGroup() {
        int[] two = PieceSelector.randomizedRarest(new Random(3)).select(range(0, 10), p -> COUNTS[p], 2);
        assertThat(two).hasSize(2);
        assertThat(List.of(1, 3, 5, 7)).contains(two[0], two[1]);
    }

    private static boolean rotationOf(List<Integer> got, List<Integer> sorted) {
        for (int k = 0; k < sorted.size(); k++) {
            List<Integer> rotated = new ArrayList<>(sorted.subList(k, sorted.size()));
            rotated.addAll(sorted.subList(0, k));
            if (rotated.equals(got)) {
                return true;
            }
        }
        return false;
    }

    private static List<Integer> slice(int[] a, int from, int to) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(a[i]);
        }
        return out;
    }

    private static BitSet range(int from, int to) {
        BitSet b = new BitSet();
        b.set(from, to);
        return b;
    }
}
