package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StallWatchdogTest {

    final ManualScheduler scheduler = new ManualScheduler();
    final List<Duration> stalls = new ArrayList<>();
    final List<Boolean> beforeFirstByte = new ArrayList<>();
    final StallWatchdog watchdog = watchdog(Duration.ofSeconds(10), Duration.ofSeconds(10));

    StallWatchdog watchdog(Duration firstByte, Duration stall) {
        return new StallWatchdog(scheduler, scheduler.ticker(), firstByte, stall, (idle, before) -> {
            stalls.add(Duration.ofNanos(idle));
            beforeFirstByte.add(before);
        });
    }

    @Test
    void firesOnceWhenNoByteCameForTheTimeout() {
        watchdog.start();
        scheduler.advance(Duration.ofMillis(9_999));
        assertThat(stalls).isEmpty();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(stalls).containsExactly(Duration.ofSeconds(10));
        scheduler.advance(Duration.ofMinutes(5));
        assertThat(stalls).hasSize(1);
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void progressPushesTheDeadlineBackWithOneTimerAtATime() {
        watchdog.start();
        for (int i = 0; i < 10; i++) {
            scheduler.advance(Duration.ofSeconds(4));
            watchdog.progress();
            assertThat(scheduler.delays()).hasSize(1);
        }
        assertThat(stalls).isEmpty();
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(stalls).containsExactly(Duration.ofSeconds(10));
    }

    @Test
    void stoppedWatchdogNeverFires() {
        watchdog.start();
        scheduler.advance(Duration.ofSeconds(3));
        watchdog.stop();
        assertThat(scheduler.delays()).isEmpty();
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(stalls).isEmpty();
    }

    @Test
    void aResponseThatNeverBeginsFiresAtTheFirstByteTimeout() {
        StallWatchdog w = watchdog(Duration.ofSeconds(3), Duration.ofSeconds(10));
        w.start();
        scheduler.advance(Duration.ofMillis(2_999));
        assertThat(stalls).isEmpty();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(stalls).containsExactly(Duration.ofSeconds(3));
        assertThat(beforeFirstByte).containsExactly(true);
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void aStallRightAfterTheFirstByteIsSeenAtTheStallTimeoutEvenWhenTheFirstByteTimeoutIsLonger() {
        StallWatchdog w = watchdog(Duration.ofSeconds(30), Duration.ofSeconds(3));
        w.start();
        scheduler.advance(Duration.ofMillis(100));
        w.progress();
        assertThat(scheduler.delays()).hasSize(1);
        scheduler.advance(Duration.ofMillis(2_999));
        assertThat(stalls).isEmpty();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(stalls).containsExactly(Duration.ofSeconds(3));
        assertThat(beforeFirstByte).containsExactly(false);
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void onceBytesCameTheStallTimeoutApplies() {
        StallWatchdog w = watchdog(Duration.ofSeconds(3), Duration.ofSeconds(10));
        w.start();
        scheduler.advance(Duration.ofSeconds(2));
        w.progress();
        scheduler.advance(Duration.ofMillis(9_999));
        assertThat(stalls).isEmpty();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(stalls).containsExactly(Duration.ofSeconds(10));
        assertThat(beforeFirstByte).containsExactly(false);
    }
}
