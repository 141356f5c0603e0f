package io.s3broadcast.p2p.protocol;

import static io.s3broadcast.p2p.protocol.Wire.GROUP;
import static io.s3broadcast.p2p.protocol.Wire.LAYOUT;
import static io.s3broadcast.p2p.protocol.Wire.MAX_FRAME;
import static io.s3broadcast.p2p.protocol.Wire.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultChannelId;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.spi.PieceLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The handshake and the proof of the group secret between two full {@link PeerPipeline}s on embedded channels
 * (a dialler and an acceptor, bytes carried between them by the test), with recording stand-ins for the exchange
 * handlers and fake time.
 */
class HandshakeHandlerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final byte[] OTHER_SECRET = "another-secret-of-enough-bytes".getBytes(StandardCharsets.US_ASCII);

    /** Stands in for the exchange handler: records user events and messages in order, and owns the messages. */
    static final class Recorder extends ChannelInboundHandlerAdapter {
        final List<Object> events = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();
        boolean handshakeHandlerGoneAtCompletion;

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            events.add(evt);
            if (evt instanceof HandshakeCompleted) {
                handshakeHandlerGoneAtCompletion = ctx.pipeline().get(PeerPipeline.HANDSHAKE) == null;
                ctx.writeAndFlush(BitfieldMessage.of(LAYOUT.pieceCount(), p -> p < 3));
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            events.add(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }

        HandshakeCompleted completed() {
            return (HandshakeCompleted) events.get(0);
        }
    }

    private final Recorder dialerSide = new Recorder();
    private final Recorder acceptorSide = new Recorder();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    /** Everything each side wrote, so tests can tell what leaked. */
    private final ByteBuf dialerBytes = io.netty.buffer.Unpooled.buffer();
    private final ByteBuf acceptorBytes = io.netty.buffer.Unpooled.buffer();
    private List<Object> sentByDialer = new ArrayList<>();
    private List<Object> sentByAcceptor = new ArrayList<>();

    @AfterEach
    void tearDown() {
        dialerSide.events.forEach(ReferenceCountUtil::release);
        acceptorSide.events.forEach(ReferenceCountUtil::release);
        sentByDialer.forEach(ReferenceCountUtil::release);
        sentByAcceptor.forEach(ReferenceCountUtil::release);
        dialerBytes.release();
        acceptorBytes.release();
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private static PeerPipeline.Builder base(String nodeId, int port) {
        return PeerPipeline.builder().group(GROUP).nodeId(nodeId).listenPort(port).layout(LAYOUT)
                .handshakeTimeout(TIMEOUT);
    }

    private EmbeddedChannel channel(PeerPipeline.Builder b, Recorder recorder, PeerPipeline.Side side) {
        // Registered only once time is frozen: the handshake's timeout is scheduled as the channel goes active, and
        // on a busy machine the embedded loop's real clock would otherwise run on between that and the test's
        // advances (CI saw the timeout fire 1 ms early).
        EmbeddedChannel ch = new EmbeddedChannel(DefaultChannelId.newInstance(), false, false,
                b.exchangeHandler(() -> recorder).build().initializer(side));
        ch.freezeTime();
        try {
            ch.register();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        channels.add(ch);
        return ch;
    }

    /** Carries bytes both ways until neither side writes more; exceptions are recorded, not thrown. */
    private void exchange(EmbeddedChannel dialer, EmbeddedChannel acceptor) {
        boolean moved = true;
        while (moved) {
            moved = carry(dialer, acceptor, dialerBytes) | carry(acceptor, dialer, acceptorBytes);
        }
        sentByDialer.forEach(ReferenceCountUtil::release);
        sentByAcceptor.forEach(ReferenceCountUtil::release);
        sentByDialer = decodeLenient(dialerBytes.copy());
        sentByAcceptor = decodeLenient(acceptorBytes.copy());
    }

    private static boolean carry(EmbeddedChannel from, EmbeddedChannel to, ByteBuf log) {
        ByteBuf bytes = Wire.drainOutbound(from);
        if (!bytes.isReadable()) {
            bytes.release();
            return false;
        }
        log.writeBytes(bytes, bytes.readerIndex(), bytes.readableBytes());
        if (to.isOpen()) {
            to.writeInbound(bytes);
        } else {
            bytes.release();
        }
        return true;
    }

    /** Decodes what a side sent, as one stream; the caller's list owns the messages. */
    private static List<Object> decodeLenient(ByteBuf bytes) {
        EmbeddedChannel ch = Wire.codecChannel();
        try {
            ch.writeInbound(bytes);
        } catch (ProtocolException e) {
            // a refused peer's stream may end mid-way; what decoded is what matters
        }
        List<Object> out = new ArrayList<>();
        for (Object o; (o = ch.readInbound()) != null; ) {
            out.add(o);
        }
        ch.finishAndReleaseAll();
        return out;
    }

    private static List<MessageType> types(List<Object> messages) {
        return messages.stream().map(m -> ((PeerMessage) m).type()).toList();
    }

    private static Goodbye.Reason refusal(Recorder r) {
        assertThat(r.errors).isNotEmpty();
        assertThat(r.errors.get(0)).isInstanceOf(HandshakeException.class);
        return ((HandshakeException) r.errors.get(0)).reason();
    }

    @Test
    void membersWithTheSameSecretAuthenticateAndHandOverBeforeTheNextMessage() {
        EmbeddedChannel dialer = channel(base("node-a", 7000).secret(SECRET), dialerSide, PeerPipeline.Side.DIALER);
        EmbeddedChannel acceptor = channel(base("node-b", 7001).secret(SECRET), acceptorSide,
                PeerPipeline.Side.ACCEPTOR);
        exchange(dialer, acceptor);

        assertThat(dialerSide.errors).isEmpty();
        assertThat(acceptorSide.errors).isEmpty();
        HandshakeCompleted atDialer = dialerSide.completed();
        assertThat(atDialer.peerNodeId()).isEqualTo("node-b");
        assertThat(atDialer.peerListenPort()).isEqualTo(7001);
        assertThat(atDialer.peerMaxFrameLength()).isEqualTo(MAX_FRAME);
        assertThat(atDialer.layout()).isEqualTo(LAYOUT);
        assertThat(acceptorSide.completed().peerNodeId()).isEqualTo("node-a");
        assertThat(acceptorSide.completed().peerListenPort()).isEqualTo(7000);
        assertThat(dialerSide.handshakeHandlerGoneAtCompletion).isTrue();
        assertThat(acceptorSide.handshakeHandlerGoneAtCompletion).isTrue();
        // Each side's bitfield, sent on completion, arrives after the completion event.
        assertThat(dialerSide.events).hasSize(2).element(1).isInstanceOf(BitfieldMessage.class);
        assertThat(acceptorSide.events).hasSize(2).element(1).isInstanceOf(BitfieldMessage.class);
        assertThat(types(sentByDialer)).containsExactly(MessageType.HANDSHAKE, MessageType.AUTH, MessageType.BITFIELD);
        assertThat(types(sentByAcceptor)).containsExactly(MessageType.HANDSHAKE, MessageType.AUTH,
                MessageType.BITFIELD);
        assertThat(dialer.pipeline().names()).startsWith(PeerPipeline.FRAME_DECODER, PeerPipeline.MESSAGE_DECODER,
                PeerPipeline.MESSAGE_ENCODER, PeerPipeline.EXCHANGE);

        // The timeouts were cancelled.
        for (EmbeddedChannel ch : List.of(dialer, acceptor)) {
            ch.advanceTimeBy(1, TimeUnit.HOURS);
            ch.runScheduledPendingTasks();
            assertThat(ch.isOpen()).isTrue();
        }
    }

    @Test
    void insecureMembersAuthenticateWithTheEmptyKey() {
        EmbeddedChannel dialer = channel(base("node-a", 0).insecure(), dialerSide, PeerPipeline.Side.DIALER);
        EmbeddedChannel acceptor = channel(base("node-b", 0).insecure(), acceptorSide, PeerPipeline.Side.ACCEPTOR);
        exchange(dialer, acceptor);
        assertThat(dialerSide.completed().peerNodeId()).isEqualTo("node-b");
        assertThat(acceptorSide.completed().peerNodeId()).isEqualTo("node-a");
    }

    @Test
    void aDialerWithAWrongSecretGetsNothingBeyondTheHandshake() {
        EmbeddedChannel dialer = channel(base("node-a", 0).secret(OTHER_SECRET), dialerSide, PeerPipeline.Side.DIALER);
        EmbeddedChannel acceptor = channel(base("node-b", 0).secret(SECRET), acceptorSide, PeerPipeline.Side.ACCEPTOR);
        exchange(dialer, acceptor);

        assertThat(refusal(acceptorSide)).isEqualTo(Goodbye.Reason.AUTH_FAILED);
        assertThat(acceptorSide.errors.get(0)).hasMessageContaining("did not prove that it holds the group secret");
        assertThat(refusal(dialerSide)).isEqualTo(Goodbye.Reason.AUTH_FAILED);
        assertThat(dialerSide.events).isEmpty();
        assertThat(acceptorSide.events).isEmpty();
        // No AUTH (and so no layout), no bitfield: the handshake and the refusal only.
        assertThat(types(sentByAcceptor)).containsExactly(MessageType.HANDSHAKE, MessageType.GOODBYE);
        assertThat(acceptor.isOpen()).isFalse();
        assertThat(dialer.isOpen()).isFalse();
    }

    @Test
    void anAcceptorWithAWrongSecretIsRefusedByTheDialer() {
        EmbeddedChannel dialer = channel(base("node-a", 0).secret(SECRET), dialerSide, PeerPipeline.Side.DIALER);
        // An acceptor that accepts anything: it cannot check our MAC, and its own is wrong.
        EmbeddedChannel acceptor = channel(base("node-b", 0).secret(OTHER_SECRET), acceptorSide,
                PeerPipeline.Side.ACCEPTOR);
        exchange(dialer, acceptor);
        assertThat(refusal(acceptorSide)).isEqualTo(Goodbye.Reason.AUTH_FAILED);
        assertThat(dialerSide.events).isEmpty();
    }

    @Test
    void aSecureNodeRefusesAnInsecureOneWithAClearReason() {
        EmbeddedChannel dialer = channel(base("node-a", 0).insecure(), dialerSide, PeerPipeline.Side.DIALER);
        EmbeddedChannel acceptor = channel(base("node-b", 0).secret(SECRET), acceptorSide, PeerPipeline.Side.ACCEPTOR);
        exchange(dialer, acceptor);
        assertThat(refusal(acceptorSide)).isEqualTo(Goodbye.Reason.AUTH_FAILED);
        assertThat(acceptorSide.errors.get(0)).hasMessageContaining("runs without a secret (insecure)");
        assertThat(refusal(dialerSide)).isEqualTo(Goodbye.Reason.AUTH_FAILED);
        assertThat(dialerSide.errors.get(0)).hasMessageContaining("requires a group secret");
        assertThat(types(sentByAcceptor)).containsExactly(MessageType.HANDSHAKE, MessageType.GOODBYE);
        assertThat(types(sentByDialer)).containsExactly(MessageType.HANDSHAKE, MessageType.GOODBYE);
    }

    @Test
    void aRecordedProofIsWorthlessOnAnotherConnection() {
        // Connection 1: a member dials; a recorder keeps its AUTH.
        EmbeddedChannel dialer = channel(base("node-a", 0).secret(SECRET), dialerSide, PeerPipeline.Side.DIALER);
        EmbeddedChannel acceptor = channel(base("node-b", 0).secret(SECRET), acceptorSide, PeerPipeline.Side.ACCEPTOR);
        exchange(dialer, acceptor);
        Handshake memberHandshake = (Handshake) sentByDialer.get(0);
        Auth memberAuth = (Auth) sentByDialer.get(1);

        // Connection 2: an attacker replays the member's handshake and proof to the same acceptor's pipeline.
        Recorder victim = new Recorder();
        EmbeddedChannel second = channel(base("node-b", 0).secret(SECRET), victim, PeerPipeline.Side.ACCEPTOR);
        Wire.drainOutbound(second).release();
        second.writeInbound(Wire.encode(memberHandshake, memberAuth));
        assertThat(refusal(victim)).isEqualTo(Goodbye.Reason.AUTH_FAILED);
        assertThat(victim.events).isEmpty();
    }

    @Test
    void aProofCannotBeReflectedToItsSender() {
        // The acceptor's own AUTH (direction "acceptor proves") sent back as a dialer's is refused.
        Recorder victim = new Recorder();
        EmbeddedChannel acceptor = channel(base("node-b", 0).secret(SECRET), victim, PeerPipeline.Side.ACCEPTOR);
        List<Object> out = decodeLenient(Wire.drainOutbound(acceptor));
        Handshake ours = (Handshake) out.get(0);
        // A stranger claims node id "node-b2" and its nonce equals ours, hoping to turn our proof into its own.
        Handshake stranger = new Handshake(Handshake.VERSION, GROUP, "node-b2", ours.nonce(), true);
        byte[] guess = PeerAuthenticator.insecure().mac(true, stranger, ours, LAYOUT.objectSize(), LAYOUT.pieceSize(),
                MAX_FRAME, 0);
        acceptor.writeInbound(Wire.encode(stranger, new Auth(guess, LAYOUT.objectSize(), LAYOUT.pieceSize(), MAX_FRAME,
                0)));
        assertThat(refusal(victim)).isEqualTo(Goodbye.Reason.AUTH_FAILED);
        assertThat(victim.events).isEmpty();
    }

    private void assertRefusedBoth(UnaryOperator<PeerPipeline.Builder> dialerChange, Goodbye.Reason reason,
            String detail) {
        EmbeddedChannel dialer = channel(dialerChange.apply(base("node-a", 0).secret(SECRET)), dialerSide,
                PeerPipeline.Side.DIALER);
        EmbeddedChannel acceptor = channel(base("node-b", 0).secret(SECRET), acceptorSide, PeerPipeline.Side.ACCEPTOR);
        exchange(dialer, acceptor);
        assertThat(refusal(acceptorSide)).isEqualTo(reason);
        assertThat(acceptorSide.errors.get(0)).hasMessageContaining(detail);
        assertThat(acceptorSide.events).isEmpty();
        assertThat(dialerSide.events).isEmpty();
        assertThat(acceptor.isOpen()).isFalse();
    }

    @Test
    void refusesAnotherGroup() {
        assertRefusedBoth(b -> b.group("0000000000000000000000000000000b"), Goodbye.Reason.GROUP_MISMATCH,
                "peer is in group");
    }

    @Test
    void refusesAGroupDifferingOnlyInCase() {
        assertRefusedBoth(b -> b.group(GROUP.toUpperCase(java.util.Locale.ROOT)), Goodbye.Reason.GROUP_MISMATCH,
                "peer is in group");
    }

    @Test
    void refusesAnotherObjectSizeAfterTheProof() {
        assertRefusedBoth(b -> b.layout(new PieceLayout(10_038, 1000)), Goodbye.Reason.LAYOUT_MISMATCH,
                "peer has 10038 bytes in pieces of 1000");
    }

    @Test
    void refusesAnotherPieceSize() {
        assertRefusedBoth(b -> b.layout(new PieceLayout(10_037, 1024)).maxFrameLength(MAX_FRAME),
                Goodbye.Reason.LAYOUT_MISMATCH, "in pieces of 1024");
    }

    @Test
    void refusesOurOwnNodeId() {
        assertRefusedBoth(b -> b.nodeId("node-b"), Goodbye.Reason.SELF_CONNECTION, "our node id node-b");
    }

    @Test
    void refusesAFrameLimitTooSmallForOurPieces() {
        assertRefusedBoth(b -> b.layout(new PieceLayout(10_037, 10)).maxFrameLength(FrameLimits.minimum(
                new PieceLayout(10_037, 10))), Goodbye.Reason.LAYOUT_MISMATCH, "pieces of 10");
    }

    @Test
    void refusesAnythingButAHandshake() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(base("node-b", 0).secret(SECRET), r, PeerPipeline.Side.ACCEPTOR);
        ch.writeInbound(new Have(1));
        assertThat(refusal(r)).isEqualTo(Goodbye.Reason.PROTOCOL_ERROR);
        assertThat(r.errors.get(0)).hasMessageContaining("expected a handshake");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void timesOutOnFakeTimeWithoutAHandshake() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(base("node-b", 0).secret(SECRET), r, PeerPipeline.Side.ACCEPTOR);
        ch.advanceTimeBy(TIMEOUT.toMillis() - 1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();
        ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(refusal(r)).isEqualTo(Goodbye.Reason.HANDSHAKE_TIMEOUT);
        assertThat(r.errors.get(0)).hasMessageContaining("no handshake within 5000 ms");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void timesOutOnFakeTimeWhenTheProofNeverComes() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(base("node-b", 0).secret(SECRET), r, PeerPipeline.Side.ACCEPTOR);
        ch.writeInbound(Wire.encode(Wire.PEER));
        ch.advanceTimeBy(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertThat(refusal(r)).isEqualTo(Goodbye.Reason.HANDSHAKE_TIMEOUT);
        assertThat(r.errors.get(0)).hasMessageContaining("no authentication within 5000 ms");
        assertThat(r.events).isEmpty();
    }

    @Test
    void aPeerThatClosesFirstLeavesNoTimerBehind() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = channel(base("node-b", 0).secret(SECRET), r, PeerPipeline.Side.ACCEPTOR);
        ch.close();
        ch.advanceTimeBy(1, TimeUnit.HOURS);
        ch.runScheduledPendingTasks();
        assertThat(r.errors).isEmpty();
        assertThat(r.events).isEmpty();
    }

    @Test
    void theSecretNeverShowsInToString() {
        assertThat(PeerAuthenticator.withSecret(SECRET).toString()).doesNotContain(new String(SECRET,
                StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> PeerAuthenticator.withSecret(new byte[8])).hasMessageContaining("at least 16");
    }
}
