package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A count's rate over a sliding window, and its highest. */
class SlidingRateTest {

    private static final long MS = 1_000_000L;
    private final SlidingRate rate = new SlidingRate(1_000 * MS);

    @Test
    void noRateBeforeAWholeWindowHasPassed() {
        rate.add(0, 0);
        rate.add(900 * MS, 90);
        assertThat(rate.rate()).isNegative();
        assertThat(rate.peak()).isZero();
        rate.add(1_000 * MS, 100);
        assertThat(rate.rate()).isEqualTo(100);
    }

    @Test
    void theRateIsOverTheLastWindowAndThePeakTheHighestSoFar() {
        long total = 0;
        for (int t = 1; t <= 30; t++) { // 100 a second for 3 s, in 100 ms steps
            total += 10;
            rate.add(t * 100 * MS, total);
        }
        assertThat(rate.rate()).isEqualTo(100);
        for (int t = 31; t <= 50; t++) { // then 300 a second for 2 s
            total += 30;
            rate.add(t * 100 * MS, total);
        }
        assertThat(rate.rate()).isEqualTo(300);
        for (int t = 51; t <= 60; t++) { // then nothing for 1 s: only the last second counts
            rate.add(t * 100 * MS, total);
        }
        assertThat(rate.rate()).isZero();
        assertThat(rate.peak()).isEqualTo(300);
    }

    @Test
    void aSampleLateByMoreThanTheWindowMeasuresOverTheTimeItCovers() {
        rate.add(0, 0);
        rate.add(3_000 * MS, 600);
        assertThat(rate.rate()).isEqualTo(200);
    }

    @Test
    void theWindowIsPositive() {
        assertThatThrownBy(() -> new SlidingRate(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
