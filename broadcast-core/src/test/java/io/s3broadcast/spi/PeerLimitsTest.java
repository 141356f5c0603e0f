package io.s3broadcast.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeerLimitsTest {

    private static PeerLimits idleTimeout(Duration timeout) {
        return new PeerLimits(PeerLimits.DEFAULT_HANDSHAKE_TIMEOUT, PeerLimits.DEFAULT_MAX_PENDING_CONNECTIONS,
                PeerLimits.DEFAULT_MAX_PEERS, PeerLimits.DEFAULT_REQUEST_TIMEOUT, 0, timeout);
    }

    @Test
    void theKeepAliveIntervalIsAFifthOfTheIdleTimeoutRoundedDownToTheNanosecond() {
        assertThat(PeerLimits.defaults().keepAliveInterval()).isEqualTo(Duration.ofSeconds(3));
        assertThat(idleTimeout(Duration.ofSeconds(7)).keepAliveInterval()).isEqualTo(Duration.ofMillis(1400));
        assertThat(idleTimeout(Duration.ofSeconds(1, 4)).keepAliveInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(idleTimeout(Duration.ofSeconds(1, 5)).keepAliveInterval()).isEqualTo(Duration.ofNanos(200_000_001));
    }

    @Test
    void theKeepAliveIntervalIsWhatDurationDividedByGives() {
        for (Duration timeout : List.of(Duration.ofSeconds(1), Duration.ofSeconds(9, 999_999_999),
                Duration.ofMillis(123_456_789), Duration.ofDays(400_000), Duration.ofSeconds(Long.MAX_VALUE, 999_999_999))) {
            assertThat(idleTimeout(timeout).keepAliveInterval()).as("%s", timeout)
                    .isEqualTo(timeout.dividedBy(PeerLimits.KEEP_ALIVES_PER_IDLE_TIMEOUT));
        }
    }
}
