package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.StealingScheduler.Action;
import io.s3broadcast.spi.PieceRun;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClusterPlanTest {

    private static final WorkList.Remaining IDLE = new WorkList.Remaining(0, 0, 0, 0);
    private static final WorkSizing.Sizing ONE_PIECE_WORKS = new WorkSizing.Sizing(2, 1, 1, 1 << 20);

    @Test
    void everyStrategyMapsToItsPlan() {
        for (Strategy s : Strategy.values()) {
            assertThat(ClusterPlan.of(s).strategy()).isEqualTo(s);
        }
    }

    @Test
    void flatTreeReadsTheWholeObjectAloneAndNeverExchanges() {
        ClusterPlan flat = ClusterPlan.of(Strategy.FLAT_TREE);
        assertThat(flat.sharingNodes(8)).isEqualTo(1);
        assertThat(flat.share(64, 1, 0, new WorkSizing.Sizing(16, 4, 4, 1 << 20))).hasSize(16)
                .startsWith(new PieceRun(0, 4)).endsWith(new PieceRun(60, 64));
        assertThat(flat.givesWork()).isFalse();
        assertThat(flat.phase2Allowed(true)).isFalse();
    }

    @Test
    void sharesAreCutIntoWorksOfTheSizedLength() {
        for (Strategy s : List.of(Strategy.NON_STEAL, Strategy.STEAL, Strategy.OVERLAP)) {
            ClusterPlan plan = ClusterPlan.of(s);
            assertThat(plan.sharingNodes(8)).isEqualTo(8);
            // Node 3 of 8 of a 64-piece object: pieces [24, 32) as eight one-piece works.
            List<PieceRun> works = plan.share(64, 8, 3, ONE_PIECE_WORKS);
            assertThat(works).hasSize(8).startsWith(new PieceRun(24, 25)).endsWith(new PieceRun(31, 32));
        }
    }

    @Test
    void nonStealNeitherStealsNorGivesAndWaitsForTheBarrier() {
        ClusterPlan plan = ClusterPlan.of(Strategy.NON_STEAL);
        StealingScheduler s = plan.scheduler(new Random(1));
        s.worksLeft("b", 5);
        assertThat(s.next(IDLE).action()).isEqualTo(Action.DONE);
        assertThat(plan.givesWork()).isFalse();
        assertThat(plan.phase2Allowed(false)).isFalse();
        assertThat(plan.phase2Allowed(true)).isTrue();
    }

    @Test
    void stealStealsGivesAndWaitsForTheBarrier() {
        ClusterPlan plan = ClusterPlan.of(Strategy.STEAL);
        StealingScheduler s = plan.scheduler(new Random(1));
        s.worksLeft("b", 5);
        assertThat(s.next(IDLE).action()).isEqualTo(Action.STEAL);
        assertThat(plan.givesWork()).isTrue();
        assertThat(plan.phase2Allowed(false)).isFalse();
        assertThat(plan.phase2Allowed(true)).isTrue();
    }

    @Test
    void overlapStealsAndExchangesFromTheStart() {
        ClusterPlan plan = ClusterPlan.of(Strategy.OVERLAP);
        StealingScheduler s = plan.scheduler(new Random(1));
        s.worksLeft("b", 5);
        assertThat(s.next(IDLE).action()).isEqualTo(Action.STEAL);
        assertThat(plan.givesWork()).isTrue();
        assertThat(plan.phase2Allowed(false)).isTrue();
    }
}
