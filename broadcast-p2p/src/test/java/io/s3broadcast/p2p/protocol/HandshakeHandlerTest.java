package io.s3broadcast.p2p.protocol;

import static io.s3broadcast.p2p.protocol.Wire.GROUP;
import static io.s3broadcast.p2p.protocol.Wire.LAYOUT;
import static io.s3broadcast.p2p.protocol.Wire.LOCAL;
import static io.s3broadcast.p2p.protocol.Wire.MAX_FRAME;
import static io.s3broadcast.p2p.protocol.Wire.PEER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.spi.PieceLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The handshake on a full {@link PeerPipeline}, with a recording stand-in for the exchange handler. */
@ExtendWith(NoLeaks.class)
class HandshakeHandlerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** Stands in for the exchange handler: records user events and messages in order, and owns the messages. */
    static final class Recorder extends ChannelInboundHandlerAdapter {
        final List<Object> events = new ArrayList<>();
        boolean handshakeHandlerGoneAtCompletion;
        boolean sendBitfieldOnCompletion;

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            events.add(evt);
            if (evt instanceof HandshakeCompleted) {
                handshakeHandlerGoneAtCompletion = ctx.pipeline().get(PeerPipeline.HANDSHAKE) == null;
                if (sendBitfieldOnCompletion) {
                    ctx.writeAndFlush(BitfieldMessage.of(LAYOUT.pieceCount(), p -> p < 3));
                }
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            events.add(msg);
        }

        void releaseAll() {
            events.forEach(ReferenceCountUtil::release);
        }
    }

    private final Recorder recorder = new Recorder();
    private EmbeddedChannel ch;

    @BeforeEach
    void setUp() {
        PeerPipeline pipeline = PeerPipeline.builder()
                .group(GROUP)
                .nodeId("node-local")
                .listenPort(7000)
                .layout(LAYOUT)
                .handshakeTimeout(TIMEOUT)
                .exchangeHandler(() -> recorder)
                .build();
        assertThat(pipeline.localHandshake()).isEqualTo(LOCAL);
        ch = new EmbeddedChannel(pipeline.initializer());
    }

    @AfterEach
    void tearDown() {
        recorder.releaseAll();
        assertFalse(ch.finish());
    }

    /** What we have sent, decoded as the peer would. */
    private List<Object> sent() {
        return Wire.decode(Wire.drainOutbound(ch));
    }

    @Test
    void sendsItsHandshakeAsSoonAsTheChannelIsActive() {
        assertThat(sent()).containsExactly(LOCAL);
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void acceptsAMatchingPeerRemovesItselfAndHandsOverBeforeTheNextMessage() {
        recorder.sendBitfieldOnCompletion = true;
        BitfieldMessage theirs = BitfieldMessage.of(LAYOUT.pieceCount(), p -> p % 2 == 0);
        // Handshake and the first messages arrive in one read.
        ch.writeInbound(Wire.encode(PEER, theirs, new Have(1)));

        assertThat(recorder.events).containsExactly(new HandshakeCompleted(LOCAL, PEER), theirs, new Have(1));
        assertThat(recorder.handshakeHandlerGoneAtCompletion).isTrue();
        HandshakeCompleted completed = (HandshakeCompleted) recorder.events.get(0);
        assertThat(completed.peerNodeId()).isEqualTo("node-peer");
        assertThat(completed.peerListenPort()).isEqualTo(7001);
        assertThat(completed.peerMaxFrameLength()).isEqualTo(MAX_FRAME);
        assertThat(completed.layout()).isEqualTo(LAYOUT);
        assertThat(ch.pipeline().names()).startsWith(PeerPipeline.FRAME_DECODER, PeerPipeline.MESSAGE_DECODER,
                PeerPipeline.MESSAGE_ENCODER, PeerPipeline.EXCHANGE);
        assertThat(sent()).containsExactly(LOCAL, BitfieldMessage.of(LAYOUT.pieceCount(), p -> p < 3));

        // The timeout was cancelled.
        ch.advanceTimeBy(1, TimeUnit.HOURS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();
        assertThat(ch.outboundMessages()).isEmpty();
    }

    @Test
    void acceptsAHandshakeFedAByteAtATime() {
        ByteBuf bytes = Wire.encode(PEER);
        while (bytes.isReadable()) {
            ch.writeInbound(bytes.readRetainedSlice(1));
        }
        bytes.release();
        assertThat(recorder.events).containsExactly(new HandshakeCompleted(LOCAL, PEER));
        assertThat(sent()).containsExactly(LOCAL);
    }

    static Stream<Arguments> mismatches() {
        return Stream.of(
                Arguments.of("other group",
                        Handshake.of("0000000000000000000000000000000b", "node-peer", 7001,
                                LAYOUT, MAX_FRAME),
                        Goodbye.Reason.GROUP_MISMATCH, "peer is in group"),
                Arguments.of("group differing only in case",
                        Handshake.of(GROUP.toUpperCase(java.util.Locale.ROOT), "node-peer", 7001,
                                LAYOUT, MAX_FRAME),
                        Goodbye.Reason.GROUP_MISMATCH, "peer is in group"),
                Arguments.of("other object size",
                        Handshake.of(GROUP, "node-peer", 7001, new PieceLayout(10_038, 1000), MAX_FRAME),
                        Goodbye.Reason.LAYOUT_MISMATCH, "peer has 10038 bytes in pieces of 1000"),
                Arguments.of("other piece size",
                        Handshake.of(GROUP, "node-peer", 7001, new PieceLayout(10_037, 1024), MAX_FRAME),
                        Goodbye.Reason.LAYOUT_MISMATCH, "in pieces of 1024"),
                Arguments.of("our own node id",
                        Handshake.of(GROUP, "node-local", 7001, LAYOUT, MAX_FRAME),
                        Goodbye.Reason.SELF_CONNECTION, "our node id node-local"),
                Arguments.of("frame limit too small for our pieces",
                        Handshake.of(GROUP, "node-peer", 7001, LAYOUT, FrameLimits.minimum(LAYOUT) - 1),
                        Goodbye.Reason.FRAME_LIMIT_TOO_SMALL, "this layout needs " + FrameLimits.minimum(LAYOUT)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mismatches")
    void refusesAMismatchedPeerWithAGoodbyeAndCloses(String name, Handshake peer, Goodbye.Reason reason,
            String detail) {
        // A piece right behind the refused handshake must be dropped (and released), not delivered.
        ByteBuf piece = Unpooled.wrappedBuffer(new byte[LAYOUT.length(0)]);
        ByteBuf input = Wire.encode(peer, new Piece(0, Piece.crc32c(piece), piece));
        assertThatThrownBy(() -> ch.writeInbound(input))
                .isInstanceOfSatisfying(HandshakeException.class, e -> assertThat(e.reason()).isEqualTo(reason))
                .hasMessageContaining(detail);
        assertRefused(reason, detail);
    }

    @Test
    void refusesAnotherProtocolVersion() {
        // The decoder already refuses other versions on the wire; the handler checks too, for any other source.
        Handshake v2 = new Handshake(2, GROUP, "node-peer", 7001, LAYOUT.objectSize(), LAYOUT.pieceSize(), MAX_FRAME);
        assertThatThrownBy(() -> ch.writeInbound(v2))
                .isInstanceOfSatisfying(HandshakeException.class,
                        e -> assertThat(e.reason()).isEqualTo(Goodbye.Reason.VERSION_MISMATCH));
        assertRefused(Goodbye.Reason.VERSION_MISMATCH, "peer speaks version 2");
    }

    @Test
    void refusesAnythingButAHandshake() {
        assertThatThrownBy(() -> ch.writeInbound(new Have(1)))
                .isInstanceOfSatisfying(HandshakeException.class,
                        e -> assertThat(e.reason()).isEqualTo(Goodbye.Reason.PROTOCOL_ERROR));
        assertRefused(Goodbye.Reason.PROTOCOL_ERROR, "expected a handshake");
    }

    @Test
    void timesOutOnFakeTime() {
        ch.advanceTimeBy(TIMEOUT.toMillis() - 1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();

        ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        assertThatThrownBy(() -> {
            ch.runScheduledPendingTasks();
            ch.checkException();
        }).isInstanceOfSatisfying(HandshakeException.class,
                e -> assertThat(e.reason()).isEqualTo(Goodbye.Reason.HANDSHAKE_TIMEOUT));
        assertRefused(Goodbye.Reason.HANDSHAKE_TIMEOUT, "no handshake within 5000 ms");
    }

    @Test
    void aPeerThatClosesFirstLeavesNoTimerBehind() {
        ch.close();
        ch.advanceTimeBy(1, TimeUnit.HOURS);
        ch.runScheduledPendingTasks();
        ch.checkException();
        assertThat(recorder.events).isEmpty();
        assertThat(sent()).containsExactly(LOCAL);
    }

    private void assertRefused(Goodbye.Reason reason, String detail) {
        assertThat(ch.isOpen()).isFalse();
        assertThat(recorder.events).isEmpty();
        List<Object> sent = sent();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0)).isEqualTo(LOCAL);
        assertThat(sent.get(1)).isInstanceOfSatisfying(Goodbye.class, g -> {
            assertThat(g.reason()).isEqualTo(reason);
            assertThat(g.detail()).contains(detail);
        });
    }
}
