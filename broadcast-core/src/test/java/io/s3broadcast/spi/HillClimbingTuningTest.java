package io.s3broadcast.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The run-time connection count: climbs while the rate rises, holds, backs off on a fall or a throttle. */
class HillClimbingTuningTest {

    static final double MB = 1e6;

    @Test
    void doublesWhileTheRateRisesThenAddsOneAtATimeUpToTheCap() {
        ConnectionTuning.Tuner t = ConnectionTuning.hillClimbing().start(2, 16);
        assertThat(t.measured(9 * MB)).isEqualTo(4);
        assertThat(t.measured(18 * MB)).isEqualTo(8);
        assertThat(t.measured(30 * MB)).isEqualTo(16);
        // At the cap it stays.
        assertThat(t.measured(40 * MB)).isEqualTo(16);
    }

    @Test
    void aStepThatDidNotHelpIsKeptAndClimbingPausesThenProbesOneMore() {
        ConnectionTuning.Tuner t = ConnectionTuning.hillClimbing().start(2, 8);
        assertThat(t.measured(9 * MB)).isEqualTo(4);
        // The link is full: 4 read no faster than 2.
        assertThat(t.measured(9.2 * MB)).isEqualTo(4);
        for (int i = 0; i < HillClimbingTuning.HOLD_INTERVALS; i++) {
            assertThat(t.measured(9.2 * MB)).isEqualTo(4);
        }
        // After the hold it probes one more (no longer doubling).
        assertThat(t.measured(9.2 * MB)).isEqualTo(5);
    }

    @Test
    void aFallAfterAStepTakesTheStepBack() {
        ConnectionTuning.Tuner t = ConnectionTuning.hillClimbing().start(4, 8);
        assertThat(t.measured(10 * MB)).isEqualTo(8);
        assertThat(t.measured(7 * MB)).isEqualTo(4);
        assertThat(t.measured(10 * MB)).isEqualTo(4);
    }

    @Test
    void afterAFallAndItsHoldItClimbsByOne() {
        ConnectionTuning.Tuner t = ConnectionTuning.hillClimbing().start(4, 16);
        assertThat(t.measured(10 * MB)).isEqualTo(8);
        assertThat(t.measured(7 * MB)).isEqualTo(4);
        for (int i = 0; i < HillClimbingTuning.HOLD_INTERVALS; i++) {
            assertThat(t.measured(10 * MB)).isEqualTo(4);
        }
        // Not back to 8, the step that fell: one more.
        assertThat(t.measured(10 * MB)).isEqualTo(5);
    }

    @Test
    void slowDownHalvesTheCountAndHolds() {
        ConnectionTuning.Tuner t = ConnectionTuning.hillClimbing().start(8, 16);
        assertThat(t.throttled()).isEqualTo(4);
        for (int i = 0; i < HillClimbingTuning.HOLD_INTERVALS; i++) {
            assertThat(t.measured(50 * MB)).isEqualTo(4);
        }
        assertThat(t.throttled()).isEqualTo(2);
        assertThat(t.throttled()).isEqualTo(1);
        assertThat(t.throttled()).isEqualTo(1);
    }

    @Test
    void fixedKeepsTheComputedCount() {
        ConnectionTuning.Tuner t = ConnectionTuning.fixed().start(3, 16);
        assertThat(t.measured(1 * MB)).isEqualTo(3);
        assertThat(t.measured(100 * MB)).isEqualTo(3);
        assertThat(t.throttled()).isEqualTo(3);
    }

    @Test
    void parsesTheSettingsNames() {
        assertThat(ConnectionTuning.parse("Adaptive")).isSameAs(ConnectionTuning.hillClimbing());
        assertThat(ConnectionTuning.parse("fixed")).isSameAs(ConnectionTuning.fixed());
    }
}
