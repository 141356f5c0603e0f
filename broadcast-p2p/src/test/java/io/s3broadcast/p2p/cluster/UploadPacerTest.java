package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class UploadPacerTest {

    private final ManualScheduler time = new ManualScheduler();
    private final UploadPacer pacer = new UploadPacer(time.ticker());

    @Test
    void withoutARateEveryPieceGoes() {
        for (int i = 0; i < 100; i++) {
            assertThat(pacer.delayNanos(1 << 20)).isZero();
        }
        assertThat(pacer.rate()).isZero();
    }

    @Test
    void bytesCountAsSentWhenTheirPieceWentIntoTheSocketNotWhenLetThrough() {
        assertThat(pacer.delayNanos(1 << 20)).isZero();
        assertThat(pacer.sent()).isZero();
        pacer.sent(1 << 20);
        pacer.sent(1000);
        assertThat(pacer.sent()).isEqualTo((1 << 20) + 1000);
    }

    @Test
    void withARatePiecesGoNoFasterThanIt() {
        pacer.rate(1_000_000);
        assertThat(pacer.delayNanos(250_000)).isZero();
        assertThat(pacer.delayNanos(250_000)).as("the first piece's quarter second").isEqualTo(250_000_000L);
        time.advance(Duration.ofMillis(100));
        assertThat(pacer.delayNanos(250_000)).isEqualTo(150_000_000L);
        time.advance(Duration.ofMillis(150));
        assertThat(pacer.delayNanos(250_000)).isZero();
    }

    @Test
    void overALongRunTheRateHoldsWhoeverAsks() {
        pacer.rate(5_000_000);
        long sent = 0;
        for (int step = 0; step < 10_000; step++) { // 10 s in 1 ms steps, three connections asking each step
            for (int connection = 0; connection < 3; connection++) {
                if (pacer.delayNanos(262_144) == 0) {
                    sent += 262_144;
                }
            }
            time.advance(Duration.ofMillis(1));
        }
        assertThat(sent / 10.0).isBetween(4_900_000.0, 5_100_000.0);
    }

    @Test
    void anIdleGateLetsAtMostABurstThroughAtOnce() {
        pacer.rate(1_000_000);
        assertThat(pacer.delayNanos(1_000)).isZero();
        time.advance(Duration.ofSeconds(10));
        int atOnce = 0;
        while (pacer.delayNanos(1_000) == 0) {
            atOnce++;
        }
        // 50 ms of the rate is 50 pieces of 1,000 bytes, and the piece that starts the next 50 ms
        assertThat(atOnce).isEqualTo(51);
    }

    @Test
    void liftingTheRateLetsPiecesGoAtOnceAndSettingItAgainOwesNothingFromBefore() {
        pacer.rate(1_000);
        assertThat(pacer.delayNanos(1_000_000)).isZero(); // 1,000 s owed at that rate
        pacer.rate(0);
        assertThat(pacer.delayNanos(1_000_000)).isZero();
        pacer.rate(1_000);
        assertThat(pacer.delayNanos(1_000)).isZero();
        assertThat(pacer.delayNanos(1_000)).isEqualTo(1_000_000_000L);
    }

    @Test
    void aRateIsZeroOrAFinitePositiveNumber() {
        assertThatThrownBy(() -> pacer.rate(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pacer.rate(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pacer.rate(Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class);
    }
}
