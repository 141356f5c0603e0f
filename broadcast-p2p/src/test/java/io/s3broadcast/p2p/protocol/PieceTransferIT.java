package io.s3broadcast.p2p.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.spi.PieceLayout;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real peers over loopback TCP, NIO on both ends: the handshake completes on both sides and every piece sent
 * from the file (zero-copy, then copying) arrives byte-exact.
 */
class PieceTransferIT {

    /** Four pieces of 1 MiB and a short fifth one, so each piece takes several socket writes. */
    private static final PieceLayout LAYOUT = new PieceLayout(4 * (1 << 20) + 12_345, 1 << 20);
    private static final String GROUP = "9b1f00c3a7e24d5e8f6a0b1c2d3e4f50";
    private static final long TIMEOUT_SECONDS = 30;

    @TempDir
    Path dir;

    private byte[] object;
    private FileChannel file;
    private EventLoopGroup group;

    @BeforeEach
    void setUp() throws IOException {
        object = new byte[(int) LAYOUT.objectSize()];
        new Random(7).nextBytes(object);
        Path path = dir.resolve("store.bin");
        Files.write(path, object);
        file = FileChannel.open(path, StandardOpenOption.READ);
        group = new NioEventLoopGroup(2);
    }

    @AfterEach
    void tearDown() throws IOException {
        group.shutdownGracefully(0, TIMEOUT_SECONDS, TimeUnit.SECONDS).syncUninterruptibly();
        file.close();
    }

    /** Sends every piece once the handshake completes. */
    private final class Sender extends ChannelInboundHandlerAdapter {
        final boolean zeroCopy;
        final CompletableFuture<HandshakeCompleted> handshake = new CompletableFuture<>();
        final CompletableFuture<Boolean> sent = new CompletableFuture<>();

        Sender(boolean zeroCopy) {
            this.zeroCopy = zeroCopy;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (!(evt instanceof HandshakeCompleted completed)) {
                ctx.fireUserEventTriggered(evt);
                return;
            }
            handshake.complete(completed);
            boolean canZeroCopy = PieceWriter.canZeroCopy(ctx.channel());
            for (int piece = 0; piece < LAYOUT.pieceCount(); piece++) {
                int from = (int) LAYOUT.offset(piece);
                CRC32C crc = new CRC32C();
                crc.update(object, from, LAYOUT.length(piece));
                var f = PieceWriter.write(ctx, piece, (int) crc.getValue(), file, from, LAYOUT.length(piece),
                        zeroCopy && canZeroCopy);
                if (piece == LAYOUT.pieceCount() - 1) {
                    f.addListener(done -> {
                        if (done.isSuccess()) {
                            sent.complete(canZeroCopy);
                        } else {
                            sent.completeExceptionally(done.cause());
                        }
                    });
                }
            }
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            handshake.completeExceptionally(cause);
            sent.completeExceptionally(cause);
            ctx.close();
        }
    }

    /** Collects pieces into an image of the object. */
    private static final class Receiver extends ChannelInboundHandlerAdapter {
        final byte[] image = new byte[(int) LAYOUT.objectSize()];
        final CompletableFuture<HandshakeCompleted> handshake = new CompletableFuture<>();
        final CompletableFuture<byte[]> received = new CompletableFuture<>();
        int pieces;

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof HandshakeCompleted completed) {
                handshake.complete(completed);
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (!(msg instanceof Piece piece)) {
                    throw new AssertionError("unexpected " + msg);
                }
                if (!piece.crcMatches()) {
                    throw new AssertionError("CRC mismatch on piece " + piece.piece());
                }
                byte[] data = ByteBufUtil.getBytes(piece.content());
                System.arraycopy(data, 0, image, (int) LAYOUT.offset(piece.piece()), data.length);
                if (++pieces == LAYOUT.pieceCount()) {
                    received.complete(image);
                }
            } catch (Throwable t) {
                received.completeExceptionally(t);
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            handshake.completeExceptionally(cause);
            received.completeExceptionally(cause);
            ctx.close();
        }
    }

    private PeerPipeline pipeline(String nodeId, int listenPort, String group,
            java.util.function.Supplier<? extends io.netty.channel.ChannelHandler> exchange) {
        return pipeline(nodeId, listenPort, group, exchange, null);
    }

    private PeerPipeline pipeline(String nodeId, int listenPort, String group,
            java.util.function.Supplier<? extends io.netty.channel.ChannelHandler> exchange, PeerTls tls) {
        PeerPipeline.Builder b = PeerPipeline.builder()
                .group(group)
                .nodeId(nodeId)
                .listenPort(listenPort)
                .layout(LAYOUT)
                .secret(Wire.SECRET)
                .exchangeHandler(exchange);
        if (tls != null) {
            b.tls(tls);
        }
        return b.build();
    }

    private Channel listen(PeerPipeline server) {
        return new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(server.initializer(PeerPipeline.Side.ACCEPTOR))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .syncUninterruptibly()
                .channel();
    }

    private Channel connect(PeerPipeline client, Channel server) {
        return new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(client.initializer(PeerPipeline.Side.DIALER))
                .connect(server.localAddress())
                .syncUninterruptibly()
                .channel();
    }

    private void transfer(boolean zeroCopy) throws Exception {
        Receiver receiver = new Receiver();
        Channel server = listen(pipeline("receiver", 0, GROUP, () -> receiver));
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        Sender sender = new Sender(zeroCopy);
        Channel client = connect(pipeline("sender", 0, GROUP, () -> sender), server);
        try {
            byte[] image = receiver.received.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertThat(sender.sent.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("channel could zero-copy").isTrue();
            assertThat(image).isEqualTo(object);
            assertThat(receiver.handshake.get().peerNodeId()).isEqualTo("sender");
            assertThat(sender.handshake.get().peerNodeId()).isEqualTo("receiver");
            assertThat(file.isOpen()).isTrue();
            assertThat(port).isPositive();
        } finally {
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void piecesSentZeroCopyFromTheFileArriveByteExact() throws Exception {
        transfer(true);
    }

    @Test
    void piecesSentAsBuffersReadFromTheFileArriveByteExact() throws Exception {
        transfer(false);
    }

    @Test
    void peersOfDifferentGroupsRefuseEachOtherOverTcp() throws Exception {
        Receiver receiver = new Receiver();
        Channel server = listen(pipeline("receiver", 0, GROUP, () -> receiver));
        Sender sender = new Sender(true);
        String other = "0123456789abcdef0123456789abcdef";
        Channel client = connect(pipeline("sender", 0, other, () -> sender), server);
        try {
            Throwable cause = sender.handshake.handle((ok, t) -> t).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertThat(cause).isInstanceOfSatisfying(HandshakeException.class,
                    e -> assertThat(e.reason()).isEqualTo(Goodbye.Reason.GROUP_MISMATCH));
            client.closeFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            Throwable serverSide = receiver.handshake.handle((ok, t) -> t).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertThat(serverSide).isInstanceOf(HandshakeException.class);
        } finally {
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void piecesArriveByteExactOverMutualTlsCopiedNotZeroCopy() throws Exception {
        java.security.KeyStore cluster = KeyPairs.generate(dir, "cluster");
        PeerTls tls = PeerTls.fromKeyStores(cluster, KeyPairs.PASSWORD, KeyPairs.trusting(cluster));
        Receiver receiver = new Receiver();
        Channel server = listen(pipeline("receiver", 0, GROUP, () -> receiver, tls));
        Sender sender = new Sender(true);
        Channel client = connect(pipeline("sender", 0, GROUP, () -> sender, tls), server);
        try {
            assertThat(receiver.received.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isEqualTo(object);
            assertThat(sender.sent.get(TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("zero-copy with TLS").isFalse();
            assertThat(client.pipeline().get(io.netty.handler.ssl.SslHandler.class)).isNotNull();
        } finally {
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
    }

    @Test
    void aPeerWithoutATrustedCertificateCannotConnectEvenWithTheSecret() throws Exception {
        java.security.KeyStore cluster = KeyPairs.generate(dir, "cluster");
        java.security.KeyStore intruder = KeyPairs.generate(dir, "intruder");
        PeerTls clusterTls = PeerTls.fromKeyStores(cluster, KeyPairs.PASSWORD, KeyPairs.trusting(cluster));
        // The intruder trusts the cluster's certificate, holds the secret, but its own certificate is not trusted.
        PeerTls intruderTls = PeerTls.fromKeyStores(intruder, KeyPairs.PASSWORD, KeyPairs.trusting(cluster, intruder));
        Receiver receiver = new Receiver();
        Channel server = listen(pipeline("receiver", 0, GROUP, () -> receiver, clusterTls));
        Sender sender = new Sender(true);
        Channel client = connect(pipeline("sender", 0, GROUP, () -> sender, intruderTls), server);
        try {
            client.closeFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            // The TLS handshake fails (the server sees no certificate it trusts); no protocol byte gets through.
            Throwable serverSide = receiver.handshake.handle((ok, t) -> ok != null ? null : t)
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertThat(serverSide).isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
            assertThat(receiver.received.isDone() && !receiver.received.isCompletedExceptionally()).isFalse();
            assertThat(sender.handshake.isDone() && !sender.handshake.isCompletedExceptionally()).isFalse();
        } finally {
            client.close().syncUninterruptibly();
            server.close().syncUninterruptibly();
        }
    }
}
