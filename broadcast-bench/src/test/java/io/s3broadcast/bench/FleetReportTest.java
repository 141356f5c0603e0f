package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When {@code fleet} calls a trial CPU-bound, and the machine's saturation in a trial's JSON. */
class FleetReportTest {

    @Test
    void anAverageOf90PercentOfTheCoresIsCpuBound() {
        assertThat(FleetReport.isCpuBound(FleetTrials.of(18.6, 0.9, null))).isTrue();
        assertThat(FleetReport.isCpuBound(FleetTrials.of(18.6, 0.89, null))).isFalse();
    }

    @Test
    void aMachineSaturatedForAQuarterOfTheSlowestNodesFetchIsCpuBoundWhateverItsAverage() {
        assertThat(FleetReport.isCpuBound(FleetTrials.of(18.6, 0.72, 6.1))).isTrue();
        assertThat(FleetReport.isCpuBound(FleetTrials.of(20.0, 0.72, 5.0))).isTrue();
        assertThat(FleetReport.isCpuBound(FleetTrials.of(20.0, 0.72, 4.9))).isFalse();
    }

    @Test
    void withoutTheMachinesSaturationOnlyTheAverageCounts() {
        FleetTrial unknown = FleetTrials.of(18.6, 0.72, null);

        assertThat(unknown.cpuSaturatedShare()).isNull();
        assertThat(FleetReport.isCpuBound(unknown)).isFalse();
    }

    @Test
    void theSaturationIsCountedFromTheStartSignalToTheSlowestNodesFetchEnd() {
        ManualScheduler time = new ManualScheduler();
        long[] ticks = {0};
        CpuSaturation cpu = new CpuSaturation(() -> "cpu " + ticks[0] + " 0 0 0 0 0 0 0 0 0", time, time.clock())
                .start();
        for (int i = 0; i < 40; i++) { // 10 s, every core busy
            ticks[0] += 50;
            time.advance(CpuSaturation.INTERVAL);
        }
        cpu.stop();

        // the start signal 2 s in, the slowest node done 6.5 s later: the 1.5 s left after it are not counted
        FleetTrial t = FleetTrials.of(6.5, 0.5).withCpuSaturation(cpu, Duration.ofSeconds(2).toMillis());

        assertThat(t.cpuSaturatedSeconds()).isEqualTo(6.5);
        assertThat(t.cpuSaturatedShare()).isEqualTo(1.0);
    }

    @Test
    void aTrialWithAFailedNodeHasNoSaturation() {
        FleetTrial failed = FleetTrial.of(1, List.of(FleetTrials.node(0, 10.0), FleetTrials.node(1, null)), 1, 1, 2);
        ManualScheduler time = new ManualScheduler();
        CpuSaturation cpu = new CpuSaturation(() -> "cpu 0 0 0 0 0 0 0 0 0 0", time, time.clock()).start();

        assertThat(failed.withCpuSaturation(cpu, 0).cpuSaturatedSeconds()).isNull();
    }

    @Test
    void theTrialsJsonHasTheSaturatedSecondsAndNotTheShare() {
        String json = Json.line(FleetTrials.of(18.6, 0.72, 6.1));

        assertThat(json).contains("\"cpuUtilisation\":0.72,\"cpuSaturatedSeconds\":6.1,").doesNotContain("Share");
    }
}
