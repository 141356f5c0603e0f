package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Unauthenticated inbound connections are closed at the handshake timeout, and the oldest on overflow. */
class PendingConnectionsTest {

    private static final long TIMEOUT_MILLIS = 10_000;

    @Test
    void aConnectionThatNeverAuthenticatesIsClosedAtTheTimeoutOnFakeTime() {
        PendingConnections pending = new PendingConnections(TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS), 64);
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        pending.accepted(ch);
        ch.advanceTimeBy(TIMEOUT_MILLIS - 1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();
        ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isFalse();
        assertThat(pending.size()).isZero();
        assertThat(pending.closedCount()).isEqualTo(1);
    }

    @Test
    void anAuthenticatedConnectionStaysOpen() {
        PendingConnections pending = new PendingConnections(TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS), 64);
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        pending.accepted(ch);
        pending.authenticated(ch);
        ch.advanceTimeBy(1, TimeUnit.HOURS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();
        assertThat(pending.closedCount()).isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void aFloodClosesTheOldestSoNewcomersGetIn() {
        PendingConnections pending = new PendingConnections(TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS), 3);
        List<EmbeddedChannel> chs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            EmbeddedChannel ch = new EmbeddedChannel();
            chs.add(ch);
            pending.accepted(ch);
        }
        assertThat(chs).extracting(EmbeddedChannel::isOpen).containsExactly(false, false, true, true, true);
        assertThat(pending.size()).isEqualTo(3);
        chs.forEach(EmbeddedChannel::finishAndReleaseAll);
        assertThat(pending.size()).isZero();
    }
}
