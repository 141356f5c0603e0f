package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateMeterTest {

    private final FakeTicker ticker = new FakeTicker();

    @Test
    void steadyRateOverTheWindow() {
        RateMeter m = new RateMeter(ticker, Duration.ofSeconds(20));
        for (int s = 0; s < 30; s++) {
            m.record(1000);
            ticker.advance(Duration.ofSeconds(1));
        }
        assertThat(m.bytesPerSecond()).isCloseTo(1000, within(1e-9));
        assertThat(m.total()).isEqualTo(30_000);
    }

    @Test
    void oldBytesSlideOutOfTheWindow() {
        RateMeter m = new RateMeter(ticker, Duration.ofSeconds(20));
        m.record(1_000_000);
        ticker.advance(Duration.ofSeconds(10));
        assertThat(m.bytesPerSecond()).isCloseTo(100_000, within(1e-6));
        ticker.advance(Duration.ofSeconds(11));
        assertThat(m.bytesPerSecond()).isZero();
        ticker.advance(Duration.ofSeconds(100));
        m.record(500);
        ticker.advance(Duration.ofMillis(500));
        // Buckets cover [102 s, 121.5 s): 500 bytes in 19.5 s.
        assertThat(m.bytesPerSecond()).isCloseTo(500 / 19.5, within(1e-9));
    }

    @Test
    void aYoungMeterDividesByItsAge() {
        RateMeter m = new RateMeter(ticker, Duration.ofSeconds(20));
        assertThat(m.bytesPerSecond()).isZero();
        m.record(5000);
        ticker.advance(Duration.ofMillis(2500));
        assertThat(m.bytesPerSecond()).isCloseTo(2000, within(1e-9));
    }
}
