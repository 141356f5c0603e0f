package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Who rests and for how long before the dialler tries again, on fake time. */
class RedialsTest {

    private final ManualScheduler time = new ManualScheduler();
    private int restsEnded;
    private final Redials redials = new Redials(time, () -> restsEnded++);

    @Test
    void eachFailureDoublesTheRestUpToTheMost() {
        redials.failed("a");
        assertThat(redials.resting("a")).isTrue();
        assertThat(time.delays()).containsExactly(Duration.ofMillis(100));
        time.advance(Duration.ofMillis(100));
        assertThat(redials.resting("a")).isFalse();
        assertThat(restsEnded).isEqualTo(1);
        redials.failed("a");
        assertThat(time.delays()).containsExactly(Duration.ofMillis(200));
        time.advance(Duration.ofMillis(200));
        for (int i = 0; i < 8; i++) {
            redials.failed("a");
            time.advance(Duration.ofMillis(Dialer.MAX_REDIAL_MILLIS));
        }
        redials.failed("a");
        assertThat(time.delays()).containsExactly(Duration.ofMillis(Dialer.MAX_REDIAL_MILLIS));
    }

    @Test
    void aConnectionStartsTheDelaysAgain() {
        redials.failed("a");
        time.advance(Duration.ofMillis(100));
        redials.failed("a");
        time.advance(Duration.ofMillis(200));
        redials.connected("a");
        redials.failed("a");
        assertThat(time.delays()).containsExactly(Duration.ofMillis(100));
    }

    @Test
    void aMemberThatRestsIsNotRestedTwice() {
        redials.failed("a");
        redials.failed("a");
        assertThat(time.scheduled()).hasSize(1);
    }

    @Test
    void aRefusingMemberRestsTheRefusalTime() {
        redials.refused("a");
        assertThat(redials.refusedBy("a")).isTrue();
        assertThat(redials.resting("a")).isTrue();
        time.advance(Duration.ofMillis(Dialer.REFUSED_MILLIS - 1));
        assertThat(redials.refusedBy("a")).isTrue();
        time.advance(Duration.ofMillis(1));
        assertThat(redials.refusedBy("a")).isFalse();
        assertThat(redials.resting("a")).isFalse();
        assertThat(restsEnded).isEqualTo(1);
    }
}
