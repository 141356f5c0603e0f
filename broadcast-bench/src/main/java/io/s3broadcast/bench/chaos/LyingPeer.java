package io.s3broadcast.bench.chaos;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.HandshakeCompleted;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.p2p.protocol.Piece;
import io.s3broadcast.p2p.protocol.Request;
import io.s3broadcast.p2p.protocol.Unchoke;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.Sha256;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hostile peer for chaos runs and tests: it completes the handshake of a group (it knows the object's
 * bucket, key and ETag, as anyone who can HEAD it does, and {@linkplain Builder#secret holds the group
 * secret}, or the nodes run insecure), claims every piece, and answers every request with
 * junk under the junk's correct CRC32C, which no CRC check can catch. With {@link Builder#lieInDigests} it
 * also vouches for its junk with {@code DIGESTS}, as if it had read every piece from S3.
 *
 * <p>{@code LyingPeer.builder().group(hash).layout(layout).build().connect(address)}; {@link #goodbyes()}
 * tells what the victims said when they threw it out.
 */
public final class LyingPeer implements AutoCloseable {

    private final PeerPipeline pipeline;
    private final PieceLayout layout;
    private final boolean lieInDigests;
    private final long seed;
    private final NioEventLoopGroup loop = new NioEventLoopGroup(1);
    private final List<Goodbye> goodbyes = new CopyOnWriteArrayList<>();
    private final List<Channel> channels = new CopyOnWriteArrayList<>();
    private final AtomicLong piecesServed = new AtomicLong();
    private final AtomicLong requestsIgnored = new AtomicLong();
    private final boolean silent;

    private LyingPeer(Builder b) {
        this.layout = b.layout;
        this.lieInDigests = b.lieInDigests;
        this.silent = b.silent;
        this.seed = b.seed;
        PeerPipeline.Builder pb = PeerPipeline.builder()
                .group(b.group)
                .nodeId(b.nodeId)
                .layout(b.layout)
                .exchangeHandler(Liar::new);
        this.pipeline = (b.secret != null ? pb.secret(b.secret) : pb.insecure()).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Connects to a node's peer port; completes once the node accepted the handshake. */
    public CompletableFuture<Void> connect(InetSocketAddress node) {
        CompletableFuture<Void> accepted = new CompletableFuture<>();
        new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
                .handler(new io.netty.channel.ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        channels.add(ch);
                        pipeline.configure(ch.pipeline(), PeerPipeline.Side.DIALER);
                        ch.attr(Liar.ACCEPTED).set(accepted);
                    }
                })
                .connect(node)
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        accepted.completeExceptionally(f.cause());
                    }
                });
        return accepted.orTimeout(30, TimeUnit.SECONDS);
    }

    /** The {@code GOODBYE}s received, in order. */
    public List<Goodbye> goodbyes() {
        return List.copyOf(goodbyes);
    }

    /** Junk pieces sent. */
    public long piecesServed() {
        return piecesServed.get();
    }

    /** Requests a {@linkplain Builder#silent silent} liar left unanswered. */
    public long requestsIgnored() {
        return requestsIgnored.get();
    }

    /** Whether every connection it opened is closed (by the victims, normally). */
    public boolean allClosed() {
        return channels.stream().noneMatch(Channel::isActive);
    }

    /** The junk served as piece {@code p}: the same bytes every time, so its digest is consistent. */
    byte[] junk(int p) {
        byte[] b = new byte[layout.length(p)];
        new Random(seed * 31 + p).nextBytes(b);
        return b;
    }

    @Override
    public void close() {
        for (Channel ch : channels) {
            ch.close();
        }
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** One connection's exchange: claim all, vouch for junk, serve junk. */
    private final class Liar extends ChannelInboundHandlerAdapter {
        static final io.netty.util.AttributeKey<CompletableFuture<Void>> ACCEPTED =
                io.netty.util.AttributeKey.valueOf("s3broadcast.liar.accepted");

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (!(evt instanceof HandshakeCompleted hc)) {
                ctx.fireUserEventTriggered(evt);
                return;
            }
            int pieces = layout.pieceCount();
            ctx.write(BitfieldMessage.of(pieces, p -> true));
            if (lieInDigests) {
                int max = Math.max(1, Digests.maxDigests(hc.peerMaxFrameLength()));
                for (int first = 0; first < pieces; first += max) {
                    int end = Math.min(pieces, first + max);
                    byte[] all = new byte[(end - first) * Sha256.BYTES];
                    for (int p = first; p < end; p++) {
                        System.arraycopy(Sha256.of(ByteBuffer.wrap(junk(p))), 0, all, (p - first) * Sha256.BYTES, Sha256.BYTES);
                    }
                    ctx.write(pipeline.signDigests(first, all));
                }
            }
            ctx.write(new WorksLeft(0));
            ctx.writeAndFlush(Unchoke.INSTANCE);
            ctx.channel().attr(ACCEPTED).get().complete(null);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof Request r && silent) {
                    requestsIgnored.incrementAndGet();
                } else if (msg instanceof Request r) {
                    ByteBuf data = Unpooled.wrappedBuffer(junk(r.piece()));
                    ctx.writeAndFlush(new Piece(r.piece(), Piece.crc32c(data), data));
                    piecesServed.incrementAndGet();
                } else if (msg instanceof Goodbye g) {
                    goodbyes.add(g);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            CompletableFuture<Void> a = ctx.channel().attr(ACCEPTED).get();
            if (a != null) {
                a.completeExceptionally(new IllegalStateException("the node closed the connection before the handshake"));
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    public static final class Builder {
        private String group;
        private String nodeId = "liar";
        private PieceLayout layout;
        private boolean lieInDigests = true;
        private boolean silent;
        private long seed = 7;
        private byte[] secret;

        private Builder() {
        }

        /**
         * The group secret: a liar that holds it passes authentication, as a member gone rogue (or a stranger
         * who stole it) would. Without one it speaks to nodes in insecure mode only.
         */
        public Builder secret(byte[] secret) {
            this.secret = secret.clone();
            return this;
        }

        /** The group hash the victims use ({@code GroupId.of(bucket, key, eTag, groupName).hash()}). */
        public Builder group(String group) {
            this.group = group;
            return this;
        }

        public Builder nodeId(String nodeId) {
            this.nodeId = nodeId;
            return this;
        }

        /** The victims' layout: the object's size and their piece size. */
        public Builder layout(PieceLayout layout) {
            this.layout = layout;
            return this;
        }

        /** Also vouch for the junk with {@code DIGESTS} (default true); false: only claim and serve junk. */
        public Builder lieInDigests(boolean lieInDigests) {
            this.lieInDigests = lieInDigests;
            return this;
        }

        /**
         * Claim every piece but never answer a request (default false: serve junk): a peer whose bitfield lies
         * about pieces it lacks.
         */
        public Builder silent(boolean silent) {
            this.silent = silent;
            return this;
        }

        /** Seed of the junk. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public LyingPeer build() {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(layout, "layout");
            return new LyingPeer(this);
        }
    }
}
