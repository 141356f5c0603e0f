package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SharesTest {

    @Test
    void paperExampleThreeNodesOf9600Pieces() {
        // 300 MB in 32 KB pieces on A, B, C: 0-3199, 3200-6399, 6400-9599.
        assertThat(range(9600, 3, 0)).containsExactly(0, 3200);
        assertThat(range(9600, 3, 1)).containsExactly(3200, 6400);
        assertThat(range(9600, 3, 2)).containsExactly(6400, 9600);
        List<PieceRun> a = Shares.works(9600, 3, 0, PhaseOneSettings.PAPER_WORK_SIZE);
        assertThat(a).hasSize(32).startsWith(new PieceRun(0, 100), new PieceRun(100, 200)).endsWith(new PieceRun(3100, 3200));
        assertThat(Shares.works(9600, 3, 1, 100).get(6)).isEqualTo(new PieceRun(3800, 3900));
    }

    @Test
    void sharesAreDisjointInOrderCoverEveryPieceAndDifferByAtMostOne() {
        for (int p = 0; p <= 40; p++) {
            for (int n = 1; n <= 12; n++) {
                int expectedNext = 0;
                int min = Integer.MAX_VALUE;
                int max = 0;
                for (int i = 0; i < n; i++) {
                    int first = Shares.first(p, n, i);
                    int end = Shares.end(p, n, i);
                    assertThat(first).as("P=%d N=%d i=%d", p, n, i).isEqualTo(expectedNext);
                    assertThat(end).isGreaterThanOrEqualTo(first);
                    expectedNext = end;
                    min = Math.min(min, end - first);
                    max = Math.max(max, end - first);
                }
                assertThat(expectedNext).isEqualTo(p);
                assertThat(max - min).isLessThanOrEqualTo(1);
            }
        }
    }

    @Test
    void pieceCountNotAMultipleOfNodes() {
        assertThat(range(10, 3, 0)).containsExactly(0, 3);
        assertThat(range(10, 3, 1)).containsExactly(3, 6);
        assertThat(range(10, 3, 2)).containsExactly(6, 10);
        assertThat(Shares.works(10, 3, 2, 3)).containsExactly(new PieceRun(6, 9), new PieceRun(9, 10));
    }

    @Test
    void fewerPiecesThanNodesLeavesSomeSharesEmpty() {
        int nonEmpty = 0;
        for (int i = 0; i < 5; i++) {
            List<PieceRun> works = Shares.works(2, 5, i, 100);
            if (!works.isEmpty()) {
                nonEmpty++;
                assertThat(works).hasSize(1);
                assertThat(works.get(0).count()).isEqualTo(1);
            }
            WorkList list = WorkList.forShare(2, 5, i, 100);
            assertThat(list.isEmpty()).isEqualTo(works.isEmpty());
        }
        assertThat(nonEmpty).isEqualTo(2);
        assertThat(range(2, 5, 0)).containsExactly(0, 0);
    }

    @Test
    void zeroPiecesGivesEveryNodeAnEmptyShare() {
        for (int i = 0; i < 4; i++) {
            assertThat(Shares.works(0, 4, i, 100)).isEmpty();
            WorkList list = WorkList.forShare(0, 4, i, 100);
            assertThat(list.poll(10)).isNull();
            assertThat(list.remaining()).isEqualTo(new WorkList.Remaining(0, 0, 0, 0));
        }
    }

    @Test
    void largeCountsDoNotOverflow() {
        int p = Integer.MAX_VALUE;
        assertThat(Shares.end(p, 3, 2)).isEqualTo(p);
        assertThat(Shares.first(p, 3, 1)).isEqualTo((int) ((long) p / 3));
    }

    @Test
    void cutLeavesAShorterLastWork() {
        assertThat(Shares.cut(5, 17, 5)).containsExactly(new PieceRun(5, 10), new PieceRun(10, 15), new PieceRun(15, 17));
        assertThat(Shares.cut(5, 5, 5)).isEmpty();
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> Shares.first(10, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Shares.first(-1, 2, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Shares.first(10, 2, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Shares.works(10, 2, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reassignSharesADeadNodesMissingPiecesAmongSurvivors() {
        Bitfield assigned = new Bitfield(400);
        assigned.setRange(100, 200);
        assigned.setRange(300, 320);
        Bitfield present = new Bitfield(400);
        present.setRange(150, 160); // fetched and shared before the node died
        present.set(0);             // not the dead node's: irrelevant
        List<List<PieceRun>> out = Shares.reassign(assigned, present, 3, 30);
        assertThat(out).hasSize(3);
        Bitfield union = new Bitfield(400);
        List<Integer> perSurvivor = new ArrayList<>();
        for (List<PieceRun> works : out) {
            int n = 0;
            for (PieceRun w : works) {
                assertThat(w.count()).isLessThanOrEqualTo(30);
                for (int p = w.first(); p < w.end(); p++) {
                    assertThat(union.set(p)).as("piece %d assigned twice", p).isTrue();
                    assertThat(assigned.get(p) && !present.get(p)).isTrue();
                    n++;
                }
            }
            perSurvivor.add(n);
        }
        assertThat(union.cardinality()).isEqualTo(110);
        assertThat(perSurvivor).containsExactly(36, 37, 37);
        // Survivor 0 takes 100-149 minus nothing: its 36 pieces are [100, 136) as works [100,130), [130,136).
        assertThat(out.get(0)).containsExactly(new PieceRun(100, 130), new PieceRun(130, 136));
        // Survivor 1's pieces straddle the gap at 150-159: no work spans it.
        assertThat(out.get(1)).containsExactly(new PieceRun(136, 150), new PieceRun(160, 183));
        assertThat(Shares.reassign(assigned, present, 3, 30)).isEqualTo(out);
    }

    @Test
    void reassignWithNothingMissingGivesNothing() {
        Bitfield assigned = new Bitfield(50);
        assigned.setRange(10, 20);
        Bitfield present = Bitfield.full(50);
        assertThat(Shares.reassign(assigned, present, 2, 10)).containsExactly(List.of(), List.of());
    }

    private static List<Integer> range(int p, int n, int i) {
        return List.of(Shares.first(p, n, i), Shares.end(p, n, i));
    }
}
