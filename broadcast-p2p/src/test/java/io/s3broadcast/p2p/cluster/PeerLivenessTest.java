package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.p2p.cluster.PeerLiveness.Action;
import io.s3broadcast.spi.PeerLimits;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PeerLivenessTest {

    private static final long S = TimeUnit.SECONDS.toNanos(1);

    private final PeerLiveness live = new PeerLiveness(3 * S, 15 * S, 0);

    @Test
    void sendsAKeepAliveAfterTheIntervalWithoutSending() {
        assertThat(live.check(2 * S)).isEqualTo(Action.NONE);
        live.received(2 * S);
        assertThat(live.check(3 * S)).isEqualTo(Action.KEEP_ALIVE);
        assertThat(live.check(4 * S)).isEqualTo(Action.NONE); // the keep-alive counts as sent
        live.sent(5 * S);
        assertThat(live.check(7 * S)).isEqualTo(Action.NONE);
        assertThat(live.check(8 * S)).isEqualTo(Action.KEEP_ALIVE);
    }

    @Test
    void aSilentPeerIsDeadAfterTheIdleTimeoutEvenWhileThisSideKeepsSending() {
        for (long t = 0; t < 15 * S; t += S) {
            live.sent(t);
            assertThat(live.check(t)).isEqualTo(Action.NONE);
        }
        assertThat(live.check(15 * S)).isEqualTo(Action.CLOSE);
    }

    @Test
    void anyByteReceivedKeepsItAlive() {
        live.received(14 * S);
        assertThat(live.check(15 * S)).isNotEqualTo(Action.CLOSE);
        assertThat(live.check(28 * S)).isNotEqualTo(Action.CLOSE);
        assertThat(live.check(29 * S)).isEqualTo(Action.CLOSE);
    }

    @Test
    void aPeerLateWithSomeKeepAlivesIsNotDropped() {
        // a CPU-starved peer whose keep-alives arrive 12 s apart (four intervals) stays
        for (long t = 12 * S; t <= 60 * S; t += 12 * S) {
            assertThat(live.check(t)).isNotEqualTo(Action.CLOSE);
            live.received(t);
        }
    }

    @Test
    void theDefaultsMissFiveKeepAlivesBeforeClosing() {
        PeerLimits limits = PeerLimits.defaults();
        assertThat(limits.peerIdleTimeout()).hasSeconds(15);
        assertThat(limits.keepAliveInterval()).hasSeconds(3);
        assertThat(new PeerLiveness(limits.keepAliveInterval().toNanos(), limits.peerIdleTimeout().toNanos(), 0)
                .checkEveryNanos()).isEqualTo(S * 3 / 2);
    }

    @Test
    void refusesAnIdleTimeoutNotLongerThanTheKeepAlive() {
        assertThatThrownBy(() -> new PeerLiveness(3 * S, 3 * S, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
