package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultChannelId;
import io.netty.channel.embedded.EmbeddedChannel;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.spi.PeerLimits;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How a connection closes after this node's {@code GOODBYE}, on an {@link EmbeddedChannel} with fake time. */
class PeerHandlerGoodbyeTest {

    private final PeerHandler handler = new PeerHandler(null, null, PeerLimits.defaults());

    private EmbeddedChannel channel() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel(DefaultChannelId.newInstance(), false, false, handler);
        ch.freezeTime();
        ch.register();
        return ch;
    }

    /** The handler says {@code GOODBYE(reason)}, and it is written. */
    private void sayGoodbye(EmbeddedChannel ch, Goodbye.Reason reason) {
        handler.goodbye(reason, "why");
        Goodbye said = ch.readOutbound();
        assertThat(said.reason()).isEqualTo(reason);
    }

    @Test
    void afterMisbehaviourTheConnectionStaysOpenForThePeerToReadTheGoodbyeAndCloseAtMostTheLinger() throws Exception {
        EmbeddedChannel ch = channel();
        sayGoodbye(ch, Goodbye.Reason.MISBEHAVIOUR);
        ch.advanceTimeBy(PeerHandler.LINGER_MILLIS - 1, TimeUnit.MILLISECONDS);
        ch.runPendingTasks();
        assertThat(ch.isOpen()).as("closed with the peer's bytes unread, the socket would reset the connection and"
                + " the peer lose the GOODBYE").isTrue();
        ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        ch.runPendingTasks();
        assertThat(ch.isOpen()).as("the peer never closed: closed after the linger").isFalse();
    }

    @Test
    void anyOtherGoodbyeClosesOnceWritten() throws Exception {
        EmbeddedChannel ch = channel();
        sayGoodbye(ch, Goodbye.Reason.PROTOCOL_ERROR);
        assertThat(ch.isOpen()).isFalse();
    }
}
