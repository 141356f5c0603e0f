package io.s3broadcast.testkit.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ManualSchedulerTest {

    final ManualScheduler scheduler = new ManualScheduler();
    final List<String> ran = new ArrayList<>();

    private Runnable log(String name) {
        return () -> ran.add(name + "@" + scheduler.nanoTime() / 1_000_000);
    }

    @Test
    void nothingRunsUntilTimeIsAdvancedAndThenInTimeOrder() {
        scheduler.schedule(log("b"), 20, TimeUnit.MILLISECONDS);
        scheduler.schedule(log("a"), 10, TimeUnit.MILLISECONDS);
        scheduler.schedule(log("c"), 20, TimeUnit.MILLISECONDS);
        assertThat(ran).isEmpty();
        scheduler.advance(Duration.ofMillis(9));
        assertThat(ran).isEmpty();
        scheduler.advance(Duration.ofMillis(11));
        assertThat(ran).containsExactly("a@10", "b@20", "c@20");
        assertThat(scheduler.nanoTime()).isEqualTo(Duration.ofMillis(20).toNanos());
    }

    @Test
    void tasksScheduledByTasksRunInTheSameAdvanceIfDue() {
        scheduler.schedule(() -> {
            ran.add("outer@" + scheduler.nanoTime() / 1_000_000);
            scheduler.schedule(log("inner"), 5, TimeUnit.MILLISECONDS);
        }, 10, TimeUnit.MILLISECONDS);
        scheduler.advance(Duration.ofMillis(100));
        assertThat(ran).containsExactly("outer@10", "inner@15");
        assertThat(scheduler.nanoTime()).isEqualTo(Duration.ofMillis(100).toNanos());
    }

    @Test
    void fixedRateAndFixedDelayRepeatWhileTimeMoves() {
        scheduler.scheduleAtFixedRate(log("rate"), 10, 10, TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(log("delay"), 5, 15, TimeUnit.MILLISECONDS);
        scheduler.advance(Duration.ofMillis(34));
        assertThat(ran).containsExactly("delay@5", "rate@10", "delay@20", "rate@20", "rate@30");
        assertThat(scheduler.scheduled()).containsExactly(
                new ManualScheduler.Scheduled(Duration.ofMillis(1), Duration.ofMillis(15)),
                new ManualScheduler.Scheduled(Duration.ofMillis(6), Duration.ofMillis(10)));
    }

    @Test
    void cancelledTasksNeitherRunNorShow() {
        ScheduledFuture<?> once = scheduler.schedule(log("once"), 1, TimeUnit.SECONDS);
        ScheduledFuture<?> every = scheduler.scheduleAtFixedRate(log("every"), 1, 1, TimeUnit.SECONDS);
        assertThat(scheduler.delays()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
        once.cancel(false);
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(ran).containsExactly("every@1000", "every@2000");
        every.cancel(false);
        assertThat(scheduler.scheduled()).isEmpty();
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(ran).hasSize(2);
    }

    @Test
    void aPeriodicTaskCanCancelItself() {
        List<ScheduledFuture<?>> self = new ArrayList<>();
        self.add(scheduler.scheduleAtFixedRate(() -> {
            ran.add("tick");
            self.get(0).cancel(false);
        }, 1, 1, TimeUnit.SECONDS));
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(ran).containsExactly("tick");
        assertThat(scheduler.scheduled()).isEmpty();
    }

    @Test
    void executeAndSubmitRunAtTheNextRunPending() throws Exception {
        scheduler.execute(log("executed"));
        Future<String> submitted = scheduler.submit(() -> "value");
        assertThat(ran).isEmpty();
        assertThat(submitted).isNotDone();
        assertThat(scheduler.delays()).containsExactly(Duration.ZERO, Duration.ZERO);
        scheduler.runPending();
        assertThat(ran).containsExactly("executed@0");
        assertThat(submitted.get()).isEqualTo("value");
        assertThat(scheduler.nanoTime()).isZero();
    }

    @Test
    void callablesCompleteTheirFutureWhenTheirTimeComes() throws Exception {
        ScheduledFuture<Integer> f = scheduler.schedule(() -> 42, 3, TimeUnit.SECONDS);
        assertThat(f.getDelay(TimeUnit.SECONDS)).isEqualTo(3);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(f.getDelay(TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(f.isDone()).isFalse();
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(f.get()).isEqualTo(42);
    }

    @Test
    void aFailingTaskFailsTheTest() {
        scheduler.schedule(() -> {
            throw new IllegalStateException("boom");
        }, 1, TimeUnit.SECONDS);
        assertThatThrownBy(() -> scheduler.advance(Duration.ofSeconds(1)))
                .isInstanceOf(AssertionError.class)
                .hasRootCauseMessage("boom");
        ScheduledFuture<?> periodic = scheduler.scheduleAtFixedRate(() -> {
            throw new IllegalStateException("tock");
        }, 1, 1, TimeUnit.SECONDS);
        assertThatThrownBy(() -> scheduler.advance(Duration.ofSeconds(5)))
                .isInstanceOf(AssertionError.class)
                .hasRootCauseMessage("tock");
        assertThat(periodic.isDone()).isTrue();
        assertThat(scheduler.scheduled()).as("not rescheduled").isEmpty();
    }

    @Test
    void tickerAndClockReadTheSameFakeTime() {
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        ManualScheduler s = new ManualScheduler(start);
        assertThat(s.ticker().read()).isZero();
        assertThat(s.clock().instant()).isEqualTo(start);
        s.advance(Duration.ofMillis(1500));
        assertThat(s.ticker().read()).isEqualTo(1_500_000_000L);
        assertThat(s.clock().instant()).isEqualTo(start.plusMillis(1500));
        assertThat(s.instant()).isEqualTo(start.plusMillis(1500));
        assertThat(new ManualScheduler().clock().instant()).isEqualTo(Instant.EPOCH);
    }

    @Test
    void timeDoesNotGoBack() {
        assertThatThrownBy(() -> scheduler.advance(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shutdownRejectsNewTasksButRunsScheduledOnes() {
        scheduler.schedule(log("before"), 1, TimeUnit.SECONDS);
        scheduler.shutdown();
        assertThat(scheduler.isShutdown()).isTrue();
        assertThat(scheduler.isTerminated()).isFalse();
        assertThatThrownBy(() -> scheduler.execute(log("after"))).isInstanceOf(RejectedExecutionException.class);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(ran).containsExactly("before@1000");
        assertThat(scheduler.isTerminated()).isTrue();
    }

    @Test
    void shutdownNowDropsWhatIsScheduled() {
        scheduler.schedule(log("dropped"), 1, TimeUnit.SECONDS);
        assertThat(scheduler.shutdownNow()).hasSize(1);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(ran).isEmpty();
        assertThat(scheduler.isTerminated()).isTrue();
    }
}
