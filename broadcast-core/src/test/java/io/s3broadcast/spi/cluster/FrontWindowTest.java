package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class FrontWindowTest {

    /** Plain order: descending, so a test sees the window's effect rather than the order's. */
    private static final CandidateOrder DESCENDING = (candidates, limit) -> candidates.stream().boxed()
            .sorted((a, b) -> b - a).limit(limit).mapToInt(Integer::intValue).toArray();

    /** A last missing piece far past every window: the window's own order applies. */
    private static final int FAR = Integer.MAX_VALUE;

    private static BitSet set(int... pieces) {
        BitSet b = new BitSet();
        for (int p : pieces) {
            b.set(p);
        }
        return b;
    }

    @Test
    void candidatesInsideTheWindowComeFirstThenTheRestEachInTheWrappedOrder() {
        FrontWindow w = new FrontWindow(4);
        // Window [3, 7): 3, 5, 6 inside; 1 (below the front: held or asked for elsewhere, not inside) and 9 outside.
        assertThat(w.select(set(1, 3, 5, 6, 9), 3, FAR, 5, DESCENDING)).containsExactly(6, 5, 3, 9, 1);
    }

    @Test
    void theWindowAloneFillsASmallBudget() {
        FrontWindow w = new FrontWindow(4);
        assertThat(w.select(set(0, 1, 2, 8, 9), 0, FAR, 2, DESCENDING)).containsExactly(2, 1);
    }

    @Test
    void withNothingInsideOrEverythingInsideTheOrderIsPlain() {
        FrontWindow w = new FrontWindow(4);
        assertThat(w.select(set(10, 20, 30), 0, FAR, 3, DESCENDING)).containsExactly(30, 20, 10);
        assertThat(w.select(set(1, 2), 0, FAR, 3, DESCENDING)).containsExactly(2, 1);
        assertThat(new FrontWindow(0).select(set(1, 9), 0, FAR, 2, DESCENDING)).containsExactly(9, 1);
    }

    @Test
    void onceEveryMissingPieceIsInsideTheWindowTheLowestComeFirst() {
        FrontWindow w = new FrontWindow(4);
        // Missing 3..6, all inside [3, 7): lowest first, whatever the wrapped order says.
        assertThat(w.select(set(3, 4, 6), 3, 6, 2, DESCENDING)).containsExactly(3, 4);
        assertThat(w.select(set(5, 6), 3, 6, 3, DESCENDING)).containsExactly(5, 6);
        // A missing piece at 7, just past the window: the window's own order again.
        assertThat(w.select(set(3, 4, 6), 3, 7, 2, DESCENDING)).containsExactly(6, 4);
    }

    @Test
    void theCandidatesAreNotModifiedAndAHugeWindowDoesNotOverflow() {
        BitSet candidates = set(1, 5, 9);
        assertThat(new FrontWindow(Integer.MAX_VALUE).select(candidates, 5, FAR, 3, DESCENDING))
                .containsExactly(9, 5, 1);
        assertThat(candidates).isEqualTo(set(1, 5, 9));
        assertThatThrownBy(() -> new FrontWindow(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window must be >= 0");
    }
}
