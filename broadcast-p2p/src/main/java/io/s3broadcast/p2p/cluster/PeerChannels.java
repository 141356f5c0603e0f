package io.s3broadcast.p2p.cluster;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.HandshakeException;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.p2p.protocol.PeerTls;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.PeerSecurity;
import io.s3broadcast.spi.PieceLayout;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run's peer channels: dials a member, or adopts an inbound connection the router hands over, with the run's
 * pipeline (the liveness handler, TLS if configured, the protocol handlers, the exchange handler); and closes them all
 * at the end with a {@code GOODBYE}; logs failed handshakes (a failed proof of the secret once per host).
 * Thread-safe: channels are tracked from their own loops.
 */
final class PeerChannels {

    private static final Logger LOG = LoggerFactory.getLogger(PeerChannels.class);

    static final int CONNECT_TIMEOUT_MILLIS = 5_000;
    /** The name of the injected handler put first in every peer channel, if any. */
    static final String FIRST_HANDLER = "peer-link";

    private final EventLoop loop;
    private final PeerTls tls;
    private final Supplier<PeerPipeline> pipeline;
    private final Supplier<? extends ChannelHandler> firstHandler;
    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
    /** Remote hosts whose failed authentication was logged (once each). */
    private final Set<String> authFailuresLogged = ConcurrentHashMap.newKeySet();

    /**
     * @param loop the run's loop: dialled channels live on it
     * @param tls TLS of peer connections, or null
     * @param pipeline the run's protocol pipeline (known once the run joined its group)
     * @param firstHandler makes a handler put first in every new channel's pipeline (a bench's emulated link:
     *     {@link NettyClusterProvider#withPeerChannelHandler}), or null for none
     */
    PeerChannels(EventLoop loop, PeerTls tls, Supplier<PeerPipeline> pipeline,
            Supplier<? extends ChannelHandler> firstHandler) {
        this.loop = loop;
        this.tls = tls;
        this.pipeline = pipeline;
        this.firstHandler = firstHandler;
    }

    /**
     * The protocol pipeline of a run: its group, this node's id and listen port, the object's layout, and the
     * group secret ({@code secret} null: insecure).
     */
    static PeerPipeline pipeline(PeerSecurity security, byte[] secret, String group, String self, int port,
            PieceLayout layout, Duration handshakeTimeout) {
        PeerPipeline.Builder b = PeerPipeline.builder();
        if (security.insecure()) {
            b.insecure();
        } else {
            b.secret(secret);
        }
        return b.group(group).nodeId(self).listenPort(port).layout(layout).handshakeTimeout(handshakeTimeout).build();
    }

    /** Dials {@code node}, with {@code handler} last in the channel's pipeline. */
    ChannelFuture dial(NodeInfo node, PeerHandler handler) {
        return new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        track(ch);
                        if (tls != null) {
                            ch.pipeline().addLast(PeerPipeline.TLS, tls.newHandler(ch, PeerPipeline.Side.DIALER));
                        }
                        install(ch, PeerPipeline.Side.DIALER, handler);
                    }
                })
                .connect(node.host(), node.port());
    }

    /** Installs the run's handlers on an inbound channel (on its loop); TLS, if any, is in place already. */
    void adopt(Channel ch, PeerHandler handler) {
        track(ch);
        install(ch, PeerPipeline.Side.ACCEPTOR, handler);
    }

    private void track(Channel ch) {
        channels.add(ch);
        ch.closeFuture().addListener(f -> channels.remove(ch));
    }

    private void install(Channel ch, PeerPipeline.Side side, PeerHandler handler) {
        ch.config().setOption(ChannelOption.SO_SNDBUF, handler.sendBuffer.size());
        pipeline.get().configure(ch.pipeline(), side);
        ch.pipeline().addFirst(LivenessHandler.NAME, handler.livenessHandler());
        ch.pipeline().addLast(PeerPipeline.EXCHANGE, handler);
        if (firstHandler != null) {
            ch.pipeline().addFirst(FIRST_HANDLER, firstHandler.get());
        }
    }

    /** The handshake of {@code h}'s connection failed; a failed proof of the secret is logged once per host. */
    void handshakeFailed(String self, PeerHandler h, HandshakeException e) {
        if (e.reason() == Goodbye.Reason.AUTH_FAILED) {
            SocketAddress remote = h.ctx.channel().remoteAddress();
            String host = remote instanceof InetSocketAddress a && a.getAddress() != null
                    ? a.getAddress().getHostAddress() : String.valueOf(remote);
            if (authFailuresLogged.size() < 1024 && authFailuresLogged.add(host)) {
                LOG.warn("{}: {}; it gets nothing (further failures from {} are logged at debug)", self, e.getMessage(),
                        host);
                return;
            }
        }
        LOG.debug("{}: {}", self, e.getMessage());
    }

    /**
     * Says {@code GOODBYE(NORMAL, detail)} on every open channel and closes it (at the latest a second later);
     * completes when all are closed.
     */
    CompletableFuture<Void> closeAll(String detail) {
        List<CompletableFuture<Void>> closed = new ArrayList<>();
        for (Channel ch : List.copyOf(channels)) {
            CompletableFuture<Void> c = new CompletableFuture<>();
            ch.closeFuture().addListener(f -> c.complete(null));
            closed.add(c);
            if (ch.isActive()) {
                ch.writeAndFlush(new Goodbye(Goodbye.Reason.NORMAL, detail)).addListener(ChannelFutureListener.CLOSE);
                ch.eventLoop().schedule(() -> ch.close(), 1, TimeUnit.SECONDS);
            } else {
                ch.close();
            }
        }
        return CompletableFuture.allOf(closed.toArray(CompletableFuture[]::new));
    }
}
