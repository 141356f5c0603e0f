package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ConnectionTuning;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How many lanes a fetch runs, against a tuner that answers as the test says; times are ticker nanos it gives. */
class LaneCountTest {

    final Scripted tuning = new Scripted();

    static long ms(long millis) {
        return millis * 1_000_000L;
    }

    /** Retires lanes until the last; returns how many there were. */
    static int retireAll(LaneCount count) {
        int n = 1;
        while (!count.retire()) {
            n++;
        }
        return n;
    }

    @Test
    void startsWithTheInitialCountAndTheTunerStartedThere() {
        LaneCount count = new LaneCount(tuning, 2, 8, false);
        assertThat(tuning.started).containsExactly(2, 8);
        assertThat(count.start(ms(0))).isEqualTo(2);
        assertThat(count.overTarget()).isFalse();
        assertThat(retireAll(count)).isEqualTo(2);
    }

    @Test
    void eachTickTellsTheTunerTheRateSinceTheLastAndStartsTheLanesItWantsMore() {
        LaneCount count = new LaneCount(tuning, 2, 8, false);
        count.start(ms(1_000));
        tuning.count = 5;
        assertThat(count.tick(ms(1_250), 1_000_000)).isEqualTo(new LaneCount.Tick(3, false));
        tuning.count = 5;
        assertThat(count.tick(ms(1_500), 1_500_000)).isEqualTo(new LaneCount.Tick(0, false));
        assertThat(tuning.rates).containsExactly(4e6, 2e6);
        assertThat(retireAll(count)).isEqualTo(5);
    }

    @Test
    void aTickWithNoTimeSinceTheLastDecidesNothing() {
        LaneCount count = new LaneCount(tuning, 2, 8, true);
        count.start(ms(1_000));
        assertThat(count.tick(ms(1_000), 1_000)).isEqualTo(LaneCount.Tick.NONE);
        assertThat(tuning.rates).isEmpty();
    }

    @Test
    void theCountStaysWithinOneAndTheMost() {
        LaneCount count = new LaneCount(tuning, 2, 8, false);
        count.start(0);
        tuning.count = 20;
        assertThat(count.tick(ms(250), 0).add()).isEqualTo(6);
        tuning.count = 0;
        count.tick(ms(500), 0);
        // Seven lanes over a count of one: each stops after its read, until one is left.
        for (int i = 0; i < 7; i++) {
            assertThat(count.overTarget()).isTrue();
            assertThat(count.retire()).isFalse();
        }
        assertThat(count.overTarget()).isFalse();
        assertThat(count.retire()).isTrue();
    }

    @Test
    void onceEveryLaneStoppedATickStartsNone() {
        LaneCount count = new LaneCount(tuning, 1, 8, true);
        count.start(0);
        assertThat(count.retire()).isTrue();
        tuning.count = 4;
        assertThat(count.tick(ms(250), 0)).isEqualTo(new LaneCount.Tick(0, false));
    }

    @Test
    void whenTheCountHoldsATickTakesOneLaneMoreToHedgeATail() {
        LaneCount count = new LaneCount(tuning, 2, 4, true);
        count.start(0);
        tuning.count = 2;
        assertThat(count.tick(ms(250), 0)).isEqualTo(new LaneCount.Tick(0, true));
        // The hedge lane counts until it retires, so it is over the count too.
        assertThat(count.overTarget()).isTrue();
        assertThat(retireAll(count)).isEqualTo(3);
    }

    @Test
    void noHedgeLaneWhenHedgingIsOffAtTheMostOrOverTheCount() {
        LaneCount off = new LaneCount(tuning, 2, 4, false);
        off.start(0);
        tuning.count = 2;
        assertThat(off.tick(ms(250), 0).hedgeLane()).isFalse();

        LaneCount full = new LaneCount(tuning, 4, 4, true);
        full.start(0);
        tuning.count = 4;
        assertThat(full.tick(ms(250), 0).hedgeLane()).isFalse();

        LaneCount throttled = new LaneCount(tuning, 4, 8, true);
        throttled.start(0);
        tuning.throttleTo = 2;
        throttled.throttled(ms(100));
        tuning.count = 2;
        assertThat(throttled.tick(ms(250), 0)).isEqualTo(new LaneCount.Tick(0, false));
    }

    @Test
    void slowDownsAreToldToTheTunerOncePerInterval() {
        LaneCount count = new LaneCount(tuning, 8, 8, false);
        count.start(0);
        tuning.throttleTo = 4;
        count.throttled(ms(100));
        assertThat(tuning.throttles).isEqualTo(1);
        assertThat(count.overTarget()).isTrue();
        // The GETs in flight together are turned away together: their 503s within the interval are not told.
        count.throttled(ms(100));
        count.throttled(ms(349));
        assertThat(tuning.throttles).isEqualTo(1);
        tuning.throttleTo = 2;
        count.throttled(ms(350));
        assertThat(tuning.throttles).isEqualTo(2);
        tuning.throttleTo = 0;
        count.throttled(ms(600));
        // Down to one, not none.
        for (int i = 0; i < 7; i++) {
            assertThat(count.retire()).isFalse();
        }
        assertThat(count.overTarget()).isFalse();
    }

    @Test
    void theLinkIsBusyWhileTheRateIsNearTheBestSoFar() {
        LaneCount count = new LaneCount(tuning, 2, 8, true);
        count.start(0);
        assertThat(count.busy()).isFalse();
        tuning.count = 2;
        count.tick(ms(250), 1_000_000);
        assertThat(count.busy()).isTrue();
        // 3.6 MB/s after 4 MB/s: still above three quarters of the best.
        count.tick(ms(500), 1_900_000);
        assertThat(count.busy()).isTrue();
        count.tick(ms(750), 2_400_000);
        assertThat(count.busy()).isFalse();
    }

    /** A tuning whose tuner answers {@link #count} and {@link #throttleTo}, recording what it is told. */
    static final class Scripted implements ConnectionTuning {
        final List<Integer> started = new ArrayList<>();
        final List<Double> rates = new ArrayList<>();
        int throttles;
        int count;
        int throttleTo;

        @Override
        public Tuner start(int initial, int cap) {
            started.add(initial);
            started.add(cap);
            return new Tuner() {
                @Override
                public int measured(double bytesPerSecond) {
                    rates.add(bytesPerSecond);
                    return count;
                }

                @Override
                public int throttled() {
                    throttles++;
                    return throttleTo;
                }
            };
        }
    }
}
