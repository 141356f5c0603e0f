package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.PieceRun;
import org.junit.jupiter.api.Test;

/** What a victim gives, on the works themselves. */
class WorkGivingTest {

    private static Works works(int... bounds) {
        Works w = new Works();
        for (int i = 0; i + 1 < bounds.length; i += 2) {
            w.add(new Work(bounds[i], bounds[i + 1]));
        }
        return w;
    }

    @Test
    void halfTheUnstartedWorksFromTheEndGo() {
        Works w = works(0, 4, 4, 8, 8, 12, 12, 16);
        w.get(0).handed.set(0);
        // Three unstarted works: ceil(3 / 2) = 2, the last two.
        assertThat(WorkGiving.giveAway(w, Integer.MAX_VALUE)).containsExactly(new PieceRun(8, 12), new PieceRun(12, 16));
        assertThat(w.size()).isEqualTo(2);
        assertThat(w.of(9)).isNull();
    }

    @Test
    void atMostMaxWorksGo() {
        Works w = works(0, 4, 4, 8, 8, 12, 12, 16);
        assertThat(WorkGiving.giveAway(w, 1)).containsExactly(new PieceRun(12, 16));
    }

    @Test
    void withOneUnstartedWorkTheQueuedTailOfTheLastWorkIsSplit() {
        Works w = works(0, 10);
        w.get(0).handed.set(0, 2);
        w.get(0).stored.set(0);
        // Pieces 2..9 are queued: the back half, [6, 10), goes; the kept work keeps its states.
        assertThat(WorkGiving.giveAway(w, Integer.MAX_VALUE)).containsExactly(new PieceRun(6, 10));
        Work kept = w.of(0);
        assertThat(kept.end).isEqualTo(6);
        assertThat(kept.stored.get(0)).isTrue();
        assertThat(kept.handed.cardinality()).isEqualTo(2);
        assertThat(w.of(7)).isNull();
    }

    @Test
    void nothingQueuedGivesNothing() {
        Works w = works(0, 2);
        w.get(0).handed.set(0, 2);
        assertThat(WorkGiving.giveAway(w, Integer.MAX_VALUE)).isEmpty();
        assertThat(WorkGiving.giveAway(w, 0)).isEmpty();
    }
}
