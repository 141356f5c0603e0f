package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import io.s3broadcast.p2p.protocol.GiveWorkRequest;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.StealingScheduler;
import io.s3broadcast.spi.cluster.StealingScheduler.Action;
import io.s3broadcast.spi.cluster.WorkList;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The thief's side of stealing, one step at a time, on fake time with fake peers. */
class WorkStealingTest {

    private static final ClusterPlan PLAN = ClusterPlan.of(Strategy.STEAL);

    private final ManualScheduler time = new ManualScheduler();
    private final ShareFetcherTest.FakeRun run = new ShareFetcherTest.FakeRun();
    private final WorkList list = new WorkList(16, List.of(new PieceRun(0, 4)));
    private final StealingScheduler scheduler = PLAN.scheduler(new Random(7));
    private int changed;
    private final WorkStealing steals = new WorkStealing("a", PLAN, scheduler, list, 16, run, time, () -> changed++);

    private Action next() {
        return steals.next(list.remaining());
    }

    @Test
    void fetchesWhileItsListHasQueuedPieces() {
        scheduler.worksLeft("b", 6);
        assertThat(next()).isEqualTo(Action.FETCH);
        assertThat(steals.outstanding()).isFalse();
    }

    @Test
    void withNothingQueuedItAsksALoadedPeerAndWaitsForTheAnswerUntilTheTimeout() {
        run.peers.add("b");
        scheduler.worksLeft("b", 6);
        assertThat(list.poll(4)).isEqualTo(new PieceRun(0, 4)); // in flight: nothing left to hand out
        assertThat(next()).isEqualTo(Action.STEAL);
        assertThat(run.sent("b")).singleElement().isInstanceOf(GiveWorkRequest.class);
        assertThat(steals.outstanding()).isTrue();
        assertThat(next()).isEqualTo(Action.WAIT);
        assertThat(steals.outstanding()).isTrue();

        time.advance(Duration.ofMillis(WorkStealing.GIVE_WORK_TIMEOUT_MILLIS - 1));
        assertThat(changed).isZero();
        time.advance(Duration.ofMillis(1));
        assertThat(changed).isEqualTo(1);
        assertThat(steals.outstanding()).isFalse();
        assertThat(next()).isEqualTo(Action.DONE); // b counts as having refused
        assertThat(run.sent("b")).hasSize(1);
    }

    @Test
    void aVictimNotConnectedCountsAsHavingRefused() {
        scheduler.worksLeft("c", 6); // advertised, but no connection to send on
        list.poll(4);
        assertThat(next()).isEqualTo(Action.STEAL);
        assertThat(steals.outstanding()).isFalse();
        assertThat(next()).isEqualTo(Action.DONE);
        assertThat(time.scheduled()).isEmpty();
    }
}
