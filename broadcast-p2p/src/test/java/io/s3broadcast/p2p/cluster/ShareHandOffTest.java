package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.WorkList;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Orphans that come to a node that stopped reading S3, on fake time. */
class ShareHandOffTest {

    private static final List<PieceRun> ORPHANS = List.of(new PieceRun(4, 6));

    private final ManualScheduler time = new ManualScheduler();
    private final ShareFetcherTest.FakeRun run = new ShareFetcherTest.FakeRun();
    private final ShareHandOff handOff = new ShareHandOff("a", ClusterPlan.of(Strategy.STEAL),
            new WorkList(8, List.of()), run, time, time.ticker(), () -> { }, () -> { });

    @Test
    void aNodeThatReadsS3TakesItsOrphans() {
        assertThat(handOff.refused(ORPHANS)).isFalse();
    }

    @Test
    void aLeavingNodeDropsThem() {
        handOff.leave(2_000, null);
        assertThat(handOff.refused(ORPHANS)).isTrue();
        time.advance(Duration.ofMinutes(1));
        assertThat(handOff.refused(ORPHANS)).isTrue();
        assertThat(run.failure).isNull();
    }

    @Test
    void aNodeS3FailedFailsWhenNoPeerFetchedItsOrphansForTheStallLimit() {
        handOff.lost(new BroadcastException("503 SlowDown"));
        assertThat(handOff.refused(ORPHANS)).isTrue();
        time.advance(Duration.ofMillis(S3StallWatch.STALL_MILLIS - 1));
        handOff.progress(); // a piece arrived: the wait starts again
        assertThat(handOff.refused(ORPHANS)).isTrue();
        time.advance(Duration.ofMillis(S3StallWatch.STALL_MILLIS - 1));
        assertThat(handOff.refused(ORPHANS)).isTrue();
        assertThat(run.failure).isNull();
        time.advance(Duration.ofMillis(1));
        assertThat(handOff.refused(ORPHANS)).isTrue();
        assertThat(run.failure).isInstanceOf(BroadcastException.class).hasMessageContaining("503 SlowDown")
                .hasMessageContaining("pieces [4, 6)").hasMessageContaining("no peer fetched them for 20000 ms");
    }

    @Test
    void aNodeS3FailedFailsAtOnceWhenNoPeerIsLeftToFetchThem() {
        run.fetching = false;
        handOff.lost(new BroadcastException("503 SlowDown"));
        assertThat(handOff.refused(ORPHANS)).isTrue();
        assertThat(run.failure).hasMessageContaining("no peer is left to fetch them");
    }
}
