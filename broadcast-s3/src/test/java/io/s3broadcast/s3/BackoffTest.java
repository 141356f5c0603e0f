package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));

    @Test
    void ceilingDoublesFromTheInitialDelayUpToTheCap() {
        assertThat(backoff.ceilingNanos(1)).isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(backoff.ceilingNanos(2)).isEqualTo(Duration.ofMillis(200).toNanos());
        assertThat(backoff.ceilingNanos(3)).isEqualTo(Duration.ofMillis(400).toNanos());
        assertThat(backoff.ceilingNanos(6)).isEqualTo(Duration.ofMillis(3200).toNanos());
        assertThat(backoff.ceilingNanos(7)).isEqualTo(Duration.ofSeconds(5).toNanos());
        assertThat(backoff.ceilingNanos(1000)).isEqualTo(Duration.ofSeconds(5).toNanos());
        assertThat(backoff.ceilingNanos(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(5).toNanos());
    }

    @Test
    void fullJitterSpreadsTheDelayOverZeroToTheCeiling() {
        assertThat(backoff.delayNanos(3, 0.0)).isZero();
        assertThat(backoff.delayNanos(3, 0.5)).isEqualTo(Duration.ofMillis(200).toNanos());
        assertThat(backoff.delayNanos(3, Math.nextDown(1.0))).isEqualTo(Duration.ofMillis(400).toNanos());
        assertThat(backoff.delayNanos(50, Math.nextDown(1.0))).isEqualTo(Duration.ofSeconds(5).toNanos());
    }

    @Test
    void extremesDoNotOverflow() {
        Backoff huge = new Backoff(Duration.ofDays(1), Duration.ofSeconds(Long.MAX_VALUE));
        assertThat(huge.ceilingNanos(64)).isEqualTo(Long.MAX_VALUE);
        assertThat(huge.delayNanos(64, Math.nextDown(1.0))).isPositive();
        Backoff zero = new Backoff(Duration.ZERO, Duration.ZERO);
        assertThat(zero.delayNanos(5, 0.9)).isZero();
        Backoff capBelowInitial = new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1));
        assertThat(capBelowInitial.ceilingNanos(1)).isEqualTo(Duration.ofSeconds(1).toNanos());
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> backoff.ceilingNanos(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> backoff.delayNanos(1, 1.0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> backoff.delayNanos(1, -0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ofMillis(-1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
