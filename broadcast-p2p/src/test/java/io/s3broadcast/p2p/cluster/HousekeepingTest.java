package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the run's tick checks in which state, and how often, on fake time. */
class HousekeepingTest {

    private final ManualScheduler time = new ManualScheduler();
    private final List<String> calls = new ArrayList<>();
    private boolean closing;
    private boolean leaving;
    private boolean complete;
    private final Housekeeping housekeeping = new Housekeeping(time, new Housekeeping.Run() {
        @Override
        public boolean closing() {
            return closing;
        }

        @Override
        public boolean leaving() {
            return leaving;
        }

        @Override
        public boolean isComplete() {
            return complete;
        }

        @Override
        public void checkLeft() {
            calls.add("left");
        }

        @Override
        public void checkLingerEnd() {
            calls.add("linger");
        }
    }, new Housekeeping.Checks() {
        @Override
        public void expireMembers() {
            calls.add("members");
        }

        @Override
        public void fillOverlay() {
            calls.add("overlay");
        }

        @Override
        public void checkPhase2Start() {
            calls.add("phase2");
        }

        @Override
        public void expireRequests() {
            calls.add("requests");
        }

        @Override
        public void checkOrphans() {
            calls.add("orphans");
        }
    });

    private List<String> tick() {
        calls.clear();
        time.advance(Duration.ofMillis(Housekeeping.PERIOD_MILLIS));
        return calls;
    }

    @Test
    void aFetchingNodeChecksEverythingEveryPeriod() {
        housekeeping.start();
        time.advance(Duration.ofMillis(Housekeeping.PERIOD_MILLIS - 1));
        assertThat(calls).isEmpty();
        assertThat(tick()).containsExactly("members", "overlay", "phase2", "requests", "orphans");
        assertThat(tick()).hasSize(5);
    }

    @Test
    void aCompleteNodeKeepsItsOverlayAndWatchesItsLinger() {
        housekeeping.start();
        complete = true;
        assertThat(tick()).containsExactly("members", "overlay", "linger");
    }

    @Test
    void aLeavingNodeOnlyChecksWhetherItMayGo() {
        housekeeping.start();
        leaving = true;
        assertThat(tick()).containsExactly("left");
    }

    @Test
    void aClosingOrStoppedRunChecksNothing() {
        housekeeping.start();
        closing = true;
        assertThat(tick()).isEmpty();
        closing = false;
        housekeeping.stop();
        assertThat(tick()).isEmpty();
        assertThat(time.scheduled()).isEmpty();
    }
}
