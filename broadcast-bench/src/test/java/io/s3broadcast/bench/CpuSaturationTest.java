package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link CpuSaturation} on fake {@code /proc/stat} readings and fake time: a machine of two cores at 100 ticks per
 * second, so each 250 ms interval has 50 ticks in all.
 */
class CpuSaturationTest {

    private static final Duration INTERVAL = CpuSaturation.INTERVAL;

    private final ManualScheduler time = new ManualScheduler();
    private final FakeStat stat = new FakeStat();

    @Test
    void countsTheIntervalsAtOrAbove95PercentOfAllCores() {
        CpuSaturation cpu = new CpuSaturation(stat, time, time.clock()).start();

        stat.add(50, 0, 0); // 100%
        time.advance(INTERVAL);
        stat.add(25, 25, 0); // 50%
        time.advance(INTERVAL);
        stat.add(48, 2, 0); // 96%
        time.advance(INTERVAL);
        cpu.stop();

        assertThat(cpu.samples()).extracting(CpuSaturation.Sample::busy).containsExactly(1.0, 0.5, 0.96);
        assertThat(cpu.samples()).extracting(CpuSaturation.Sample::millis).containsExactly(250L, 250L, 250L);
        assertThat(cpu.saturatedSeconds(0, 750)).isEqualTo(0.5);
    }

    @Test
    void iowaitIsNotBusyAndJustBelow95PercentIsNotSaturated() {
        CpuSaturation cpu = new CpuSaturation(stat, time, time.clock()).start();

        stat.add(40, 0, 10); // 80%: the rest waits for I/O
        time.advance(INTERVAL);
        stat.add(47, 3, 0); // 94%
        time.advance(INTERVAL);

        assertThat(cpu.samples()).extracting(CpuSaturation.Sample::busy).containsExactly(0.8, 0.94);
        assertThat(cpu.saturatedSeconds(0, 500)).isZero();
    }

    @Test
    void countsOnlyTheWindowsPartOfAnInterval() {
        CpuSaturation cpu = new CpuSaturation(stat, time, time.clock()).start();

        stat.add(50, 0, 0);
        time.advance(INTERVAL);
        stat.add(25, 25, 0);
        time.advance(INTERVAL);
        stat.add(50, 0, 0);
        time.advance(INTERVAL);

        // [125, 625]: the second half of the first interval, the first half of the third
        assertThat(cpu.saturatedSeconds(125, 625)).isEqualTo(0.25);
        assertThat(cpu.saturatedSeconds(750, 2000)).isZero();
    }

    @Test
    void stopTakesALastReadingAndEndsTheReadings() {
        CpuSaturation cpu = new CpuSaturation(stat, time, time.clock()).start();

        stat.add(50, 0, 0);
        time.advance(INTERVAL);
        stat.add(20, 0, 0); // 100 ms more, all busy
        time.advance(Duration.ofMillis(100));
        cpu.stop();

        assertThat(cpu.samples()).extracting(CpuSaturation.Sample::millis).containsExactly(250L, 100L);
        assertThat(cpu.saturatedSeconds(0, 10_000)).isEqualTo(0.35);
        assertThat(time.scheduled()).isEmpty();
        stat.add(50, 0, 0);
        time.advance(INTERVAL);
        assertThat(cpu.samples()).hasSize(2);
    }

    @Test
    void countersThatDoNotMoveOrGoBackLeaveTheirIntervalOut() {
        CpuSaturation cpu = new CpuSaturation(stat, time, time.clock()).start();

        time.advance(INTERVAL); // no change
        stat.reset(); // the counters went back (a wrap)
        time.advance(INTERVAL);
        stat.add(50, 0, 0); // counted from the reading after the wrap
        time.advance(INTERVAL);

        assertThat(cpu.samples()).extracting(CpuSaturation.Sample::endMillis).containsExactly(750L);
        assertThat(cpu.saturatedSeconds(0, 750)).isEqualTo(0.25);
    }

    @Test
    void withoutProcStatItTellsNothingAndReadsNoMore() {
        CpuSaturation cpu = new CpuSaturation(() -> {
            throw new NoSuchFileException("/proc/stat");
        }, time, time.clock()).start();

        time.advance(INTERVAL);
        cpu.stop();

        assertThat(cpu.saturatedSeconds(0, 250)).isNull();
        assertThat(cpu.samples()).isEmpty();
        assertThat(time.scheduled()).isEmpty();
    }

    @Test
    void aReadingWithoutTheAggregateLineTellsNothing() {
        CpuSaturation cpu = new CpuSaturation(() -> "intr 1 2 3", time, time.clock()).start();

        assertThat(cpu.saturatedSeconds(0, 250)).isNull();
    }

    @Test
    void parsesTheAggregateLineWithoutCountingGuestTwice() {
        // user nice system idle iowait irq softirq steal guest guest_nice; then a core's line
        CpuSaturation.Ticks t = CpuSaturation.Ticks.parse("cpu  100 5 30 800 40 2 3 1 77 7\ncpu0 1 1 1 1 1 1 1 1 1 1\n");

        assertThat(t.total()).isEqualTo(981);
        assertThat(t.busy()).isEqualTo(141);
        assertThat(CpuSaturation.Ticks.parse("cpu0 1 2 3 4 5\n")).isNull();
    }

    /** A {@code /proc/stat} whose aggregate counters the test moves; the user, idle and iowait columns only. */
    private static final class FakeStat implements CpuSaturation.StatReader {
        private long busy = 1_000;
        private long idle = 5_000;
        private long iowait = 100;

        void add(long busyTicks, long idleTicks, long iowaitTicks) {
            busy += busyTicks;
            idle += idleTicks;
            iowait += iowaitTicks;
        }

        void reset() {
            busy = 0;
            idle = 0;
            iowait = 0;
        }

        @Override
        public String read() {
            return "cpu  " + busy + " 0 0 " + idle + " " + iowait + " 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n";
        }
    }
}
