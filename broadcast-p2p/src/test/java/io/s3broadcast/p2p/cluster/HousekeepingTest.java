package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.base.Ticker;
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
    /** What the orphan rule throws when it runs, if anything. */
    private RuntimeException orphansThrow;
    /** Ticker time beyond the scheduler's: a stall of the loop, which runs its tick late. */
    private long stalled;
    private final Ticker ticker = new Ticker() {
        @Override
        public long read() {
            return time.ticker().read() + stalled;
        }
    };
    private final Housekeeping housekeeping = new Housekeeping(time, ticker, new Housekeeping.Run() {
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

        @Override
        public void fail(Throwable error) {
            calls.add("failed: " + error.getMessage());
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
            if (orphansThrow != null) {
                throw orphansThrow;
            }
        }

        @Override
        public void paceUploads() {
            calls.add("pace");
        }

        @Override
        public void loopStalled(long nanos) {
            calls.add("stalled " + Duration.ofNanos(nanos).toMillis());
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
        assertThat(tick()).containsExactly("members", "overlay", "pace", "phase2", "requests", "orphans");
        assertThat(tick()).hasSize(6);
    }

    @Test
    void aTickFiveOrMorePeriodsAfterTheLastTellsTheChecksHowLongTheLoopDidNotRunBeforeTheyRun() {
        housekeeping.start();
        tick();
        stalled = Duration.ofMillis(4 * Housekeeping.PERIOD_MILLIS - 1).toNanos();
        assertThat(tick()).as("just under five periods: late, not stalled").hasSize(6);
        stalled += Duration.ofMillis(4_000).toNanos();
        assertThat(tick()).containsExactly("stalled 4000", "members", "overlay", "pace", "phase2", "requests", "orphans");
        assertThat(tick()).as("on time again").hasSize(6);
    }

    @Test
    void aCompleteNodeKeepsItsOverlayAndWatchesItsLinger() {
        housekeeping.start();
        complete = true;
        assertThat(tick()).containsExactly("members", "overlay", "pace", "linger");
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

    @Test
    void aCheckThatThrowsFailsTheRunAndTheTickStops() {
        housekeeping.start();
        orphansThrow = new IllegalStateException("broken");
        assertThat(tick()).containsExactly("members", "overlay", "pace", "phase2", "requests", "orphans",
                "failed: broken");
        assertThat(tick()).as("a failed run's tick does not come again").isEmpty();
    }
}
