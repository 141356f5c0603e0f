package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stall watch of phase 1's S3 fetch, on fake time. */
class S3StallWatchTest {

    private final ManualScheduler time = new ManualScheduler();
    private final List<BroadcastException> stalls = new ArrayList<>();
    private boolean watched = true;
    private boolean alone;
    private final S3StallWatch watch = new S3StallWatch(time, time.ticker(), 20_000, new S3StallWatch.Fetch() {
        @Override
        public boolean watched() {
            return watched;
        }

        @Override
        public boolean alone() {
            return alone;
        }

        @Override
        public void stalled(BroadcastException why) {
            stalls.add(why);
        }
    });

    @Test
    void aFetchThatStoresNothingForTheLimitIsStalled() {
        watch.progress();
        watch.watch();
        time.advance(Duration.ofMillis(19_999));
        assertThat(stalls).isEmpty();
        time.advance(Duration.ofMillis(1));
        assertThat(stalls).singleElement().extracting(Throwable::getMessage).asString()
                .contains("no byte came from S3 for 20000 ms");
    }

    @Test
    void progressPushesTheCheckBack() {
        watch.progress();
        watch.watch();
        time.advance(Duration.ofSeconds(15));
        watch.progress();
        time.advance(Duration.ofSeconds(15));
        assertThat(stalls).isEmpty();
        time.advance(Duration.ofSeconds(5));
        assertThat(stalls).hasSize(1);
    }

    @Test
    void aNodeAloneKeepsWaitingAndIsLookedAtAWholePeriodLater() {
        alone = true;
        watch.progress();
        watch.watch();
        time.advance(Duration.ofSeconds(60));
        assertThat(stalls).isEmpty();
        assertThat(time.delays()).containsExactly(Duration.ofSeconds(20));
        alone = false;
        time.advance(Duration.ofSeconds(20));
        assertThat(stalls).hasSize(1);
    }

    @Test
    void aFetchNoLongerWatchedIsLeftAlone() {
        watch.progress();
        watch.watch();
        watched = false;
        time.advance(Duration.ofSeconds(60));
        assertThat(stalls).isEmpty();
        assertThat(time.scheduled()).isEmpty();
    }

    @Test
    void oneCheckIsScheduledAtATime() {
        watch.progress();
        watch.watch();
        watch.watch();
        assertThat(time.scheduled()).hasSize(1);
    }
}
