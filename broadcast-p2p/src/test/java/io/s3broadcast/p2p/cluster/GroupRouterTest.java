package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.s3broadcast.p2p.protocol.HandshakeCompleted;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.spi.PieceLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The router of the shared peer server, on {@link EmbeddedChannel}s with fake time. */
class GroupRouterTest {

    private static final PieceLayout LAYOUT = new PieceLayout(10_037, 1000);
    private static final String GROUP = "0123456789abcdef0123456789abcdef";
    private static final byte[] SECRET = "group-router-test-secret".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** A run that installs a pipeline for {@code group} and records what its exchange handler hears. */
    private static final class Run implements GroupRouter.Target {
        final List<Object> events = new ArrayList<>();
        final PeerPipeline pipeline;
        boolean refuse;

        Run(String group) {
            pipeline = PeerPipeline.builder().group(group).nodeId("server").layout(LAYOUT).secret(SECRET)
                    .exchangeHandler(() -> new ChannelInboundHandlerAdapter() {
                        @Override
                        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                            events.add(evt);
                        }
                    }).build();
        }

        @Override
        public boolean adoptInbound(Channel channel) {
            if (refuse) {
                return false;
            }
            pipeline.configure(channel.pipeline(), PeerPipeline.Side.ACCEPTOR);
            return true;
        }
    }

    /** The bytes a peer of {@code group} sends first: its handshake. */
    private static ByteBuf handshakeOf(String group) {
        EmbeddedChannel client = new EmbeddedChannel();
        PeerPipeline.builder().group(group).nodeId("client").layout(LAYOUT).secret(SECRET).build()
                .configure(client.pipeline(), PeerPipeline.Side.DIALER);
        ByteBuf out = Unpooled.buffer();
        for (ByteBuf b; (b = client.readOutbound()) != null; ) {
            out.writeBytes(b);
            b.release();
        }
        client.finishAndReleaseAll();
        return out;
    }

    private static void feedByteByByte(EmbeddedChannel ch, ByteBuf bytes) {
        while (bytes.isReadable()) {
            ch.writeInbound(bytes.readRetainedSlice(1));
        }
        bytes.release();
    }

    private static void releaseOutbound(EmbeddedChannel ch) {
        for (Object o; (o = ch.readOutbound()) != null; ) {
            io.netty.util.ReferenceCountUtil.release(o);
        }
    }

    @Test
    void handsAConnectionToTheRunOfItsGroupEvenFedByteByByte() {
        GroupRouter router = new GroupRouter();
        Run run = new Run(GROUP);
        router.register(GROUP, run);
        EmbeddedChannel ch = new EmbeddedChannel(router.newHandler());
        EmbeddedChannel client = new EmbeddedChannel();
        PeerPipeline.builder().group(GROUP).nodeId("client").layout(LAYOUT).secret(SECRET).build()
                .configure(client.pipeline(), PeerPipeline.Side.DIALER);
        feedByteByByte(ch, drain(client));
        assertNull(ch.pipeline().get(GroupRouter.Handler.class), "the router removed itself");
        assertTrue(run.events.isEmpty(), "nothing before the client proved the secret");
        client.writeInbound(drain(ch)); // the run's handshake; the client answers with its proof
        ch.writeInbound(drain(client));
        assertEquals(1, run.events.size());
        HandshakeCompleted hc = assertInstanceOf(HandshakeCompleted.class, run.events.get(0));
        assertEquals("client", hc.peerNodeId());
        ByteBuf answer = drain(ch);
        assertTrue(answer.isReadable(), "the run's proof went out");
        answer.release();
        client.finishAndReleaseAll();
        assertFalse(ch.finishAndReleaseAll());
    }

    private static ByteBuf drain(EmbeddedChannel ch) {
        ByteBuf out = Unpooled.buffer();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            out.writeBytes(b);
            b.release();
        }
        return out;
    }

    @Test
    void aConnectionForAGroupWithNoRunYetWaitsForIt() {
        GroupRouter router = new GroupRouter();
        EmbeddedChannel ch = new EmbeddedChannel(router.newHandler());
        ch.writeInbound(handshakeOf(GROUP));
        assertTrue(ch.isActive());
        assertNull(ch.readOutbound(), "nothing is answered before the run exists");
        Run run = new Run(GROUP);
        router.register(GROUP, run);
        ch.runPendingTasks();
        assertNull(ch.pipeline().get(GroupRouter.Handler.class), "handed to the run");
        releaseOutbound(ch);
        assertFalse(ch.finishAndReleaseAll());
    }

    @Test
    void aConnectionWaitingTooLongForItsRunIsClosed() {
        GroupRouter router = new GroupRouter();
        router.register("another-group", new Run("another-group"));
        EmbeddedChannel ch = new EmbeddedChannel(router.newHandler());
        ch.freezeTime();
        ch.writeInbound(handshakeOf(GROUP));
        ch.advanceTimeBy(GroupRouter.PARK_MILLIS - 1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen());
        ch.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isOpen());
        assertFalse(ch.finishAndReleaseAll());
    }

    @Test
    void somethingElseThanAHandshakeIsClosedAtOnce() {
        GroupRouter router = new GroupRouter();
        router.register(GROUP, new Run(GROUP));
        EmbeddedChannel http = new EmbeddedChannel(router.newHandler());
        http.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n", java.nio.charset.StandardCharsets.US_ASCII));
        assertFalse(http.isOpen());
        assertFalse(http.finishAndReleaseAll());
    }

    @Test
    void aRunThatRefusesGetsTheConnectionClosed() {
        GroupRouter router = new GroupRouter();
        Run run = new Run(GROUP);
        run.refuse = true;
        router.register(GROUP, run);
        EmbeddedChannel ch = new EmbeddedChannel(router.newHandler());
        ch.writeInbound(handshakeOf(GROUP));
        assertFalse(ch.isOpen());
        assertFalse(ch.finishAndReleaseAll());
    }

    /**
     * A run registering while a connection for its group is being routed on another thread: the connection is
     * handed to it either way, never left parked behind a run that exists (it would wait out the park time and be
     * dropped). Real channels on their own loop, many rounds: the interleaving is left to the threads, so this checks
     * the hand-over under concurrency rather than catching the race (the two-step lookup it replaced passed it three
     * times out of three: the window was a few instructions; one lock for both steps closes it by construction).
     */
    @Test
    void aRunRegisteredWhileItsConnectionIsRoutedGetsIt() throws Exception {
        EventLoopGroup loop = new DefaultEventLoopGroup(1);
        try {
            for (int round = 0; round < 100; round++) {
                GroupRouter router = new GroupRouter();
                LocalAddress address = new LocalAddress("group-router-test-" + round);
                Channel server = new ServerBootstrap().group(loop).channel(LocalServerChannel.class)
                        .childHandler(new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel ch) {
                                ch.pipeline().addLast(router.newHandler());
                            }
                        }).bind(address).sync().channel();
                Channel client = new Bootstrap().group(loop).channel(LocalChannel.class)
                        .handler(new ChannelInboundHandlerAdapter()).connect(address).sync().channel();
                CompletableFuture<Channel> adopted = new CompletableFuture<>();
                client.writeAndFlush(handshakeOf(GROUP));
                router.register(GROUP, ch -> adopted.complete(ch));
                // Microseconds normally; the bound only catches a connection left parked, not a slow machine.
                assertNotNull(adopted.get(30, TimeUnit.SECONDS), "round " + round);
                client.close().sync();
                server.close().sync();
            }
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }
}
