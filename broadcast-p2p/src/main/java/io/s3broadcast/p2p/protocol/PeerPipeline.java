package io.s3broadcast.p2p.protocol;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.s3broadcast.spi.PieceLayout;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Assembles the protocol handlers of one peer connection, one concern each:
 *
 * <pre>
 *   {@value #FRAME_DECODER}   cuts frames, hard size limit; paces reads inside a long frame ({@code ReadPacing})
 *   {@value #MESSAGE_DECODER} frame -&gt; {@link PeerMessage}, validates
 *   {@value #MESSAGE_ENCODER} {@link PeerMessage} -&gt; frame (shared, stateless)
 *   {@value #TLS}             TLS, when configured (first)
 *   {@value #HANDSHAKE}       handshakes and proofs of the group secret, then removes itself
 *   {@value #EXCHANGE}        the exchange handler, if one was given
 * </pre>
 *
 * <p>The exchange handler gets {@link HandshakeCompleted} as a user event before any other message of the peer, and
 * only once the peer has proved that it holds the group's secret. With TLS ({@link Builder#tls}) an
 * {@code SslHandler} goes first ({@link PieceWriter} then copies instead of using a FileRegion).
 *
 * <p>Immutable and reusable: one instance serves every connection of a node, inbound and outbound.
 */
public final class PeerPipeline {

    public static final String FRAME_DECODER = "frameDecoder";
    public static final String MESSAGE_DECODER = "messageDecoder";
    public static final String MESSAGE_ENCODER = "messageEncoder";
    public static final String HANDSHAKE = "handshake";
    public static final String EXCHANGE = "exchange";
    public static final String TLS = "tls";

    /** Which end of the connection this node is: the dialling side proves itself first. */
    public enum Side {
        /** This node opened the connection. */
        DIALER,
        /** This node accepted the connection. */
        ACCEPTOR
    }

    /** How long we wait for the peer's handshake unless told otherwise. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    private final String group;
    private final String nodeId;
    private final int listenPort;
    private final PieceLayout layout;
    private final int maxFrameLength;
    private final PeerAuthenticator authenticator;
    private final PeerTls tls;
    private final Duration handshakeTimeout;
    private final Supplier<? extends ChannelHandler> exchangeHandler;

    private PeerPipeline(Builder b) {
        PieceLayout layout = Objects.requireNonNull(b.layout, "layout");
        int minimum = FrameLimits.minimum(layout);
        int maxFrameLength = b.maxFrameLength == 0 ? FrameLimits.defaultFor(layout) : b.maxFrameLength;
        if (maxFrameLength < minimum) {
            throw new IllegalArgumentException("maxFrameLength " + maxFrameLength + " is below " + minimum
                    + ", the largest message of this layout");
        }
        if (b.authenticator == null) {
            throw new IllegalStateException("no group secret: set secret(...) or, to accept any peer, insecure()");
        }
        Handshake.of(Objects.requireNonNull(b.group, "group"), Objects.requireNonNull(b.nodeId, "nodeId"), true);
        this.group = b.group;
        this.nodeId = b.nodeId;
        this.listenPort = b.listenPort;
        this.layout = layout;
        this.maxFrameLength = maxFrameLength;
        this.authenticator = b.authenticator;
        this.tls = b.tls;
        this.handshakeTimeout = b.handshakeTimeout;
        this.exchangeHandler = b.exchangeHandler;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A handshake this node sends, with a fresh nonce (each connection gets its own). */
    public Handshake newHandshake() {
        return Handshake.of(group, nodeId, authenticator.authenticated());
    }

    public PieceLayout layout() {
        return layout;
    }

    public int maxFrameLength() {
        return maxFrameLength;
    }

    public int listenPort() {
        return listenPort;
    }

    /**
     * The {@code DIGESTS} this node ({@code nodeId}) sends for pieces {@code [first, first + count)}, signed with
     * the group secret (insecure: the empty key).
     */
    public Digests signDigests(int first, byte[] digests) {
        return new Digests(first, digests, authenticator.digestsMac(group, nodeId, first, digests));
    }

    /** Whether {@code d} carries the MAC that {@code vouchingNodeId}, holding the group secret, would have made. */
    public boolean verify(Digests d, String vouchingNodeId) {
        return authenticator.verifyDigests(group, vouchingNodeId, d);
    }

    /** Whether this node authenticates peers with a secret (false: insecure). */
    public boolean authenticated() {
        return authenticator.authenticated();
    }

    /** Whether connections run over TLS. */
    public boolean tls() {
        return tls != null;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    /** Adds the handlers to the end of {@code pipeline}, in the order above, for this node as {@code side}. */
    public void configure(ChannelPipeline pipeline, Side side) {
        Objects.requireNonNull(side, "side");
        if (tls != null) {
            pipeline.addLast(TLS, tls.newHandler(pipeline.channel(), side));
        }
        pipeline.addLast(FRAME_DECODER, new FrameDecoder(maxFrameLength(), ReadPacing.on(System::nanoTime)));
        pipeline.addLast(MESSAGE_DECODER, new MessageDecoder(layout()));
        pipeline.addLast(MESSAGE_ENCODER, MessageEncoder.INSTANCE);
        pipeline.addLast(HANDSHAKE, new HandshakeHandler(newHandshake(), side, authenticator, layout, maxFrameLength,
                listenPort, handshakeTimeout.toNanos()));
        if (exchangeHandler != null) {
            pipeline.addLast(EXCHANGE, Objects.requireNonNull(exchangeHandler.get(), "exchange handler"));
        }
    }

    /** A channel initializer that {@link #configure configures} each new channel for this node as {@code side}. */
    public ChannelInitializer<Channel> initializer(Side side) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                configure(ch.pipeline(), side);
            }
        };
    }

    /**
     * Builds a {@link PeerPipeline}; group, node id, layout and either a secret or {@link Builder#insecure()} are
     * required.
     */
    public static final class Builder {

        private String group;
        private String nodeId;
        private int listenPort;
        private PieceLayout layout;
        private int maxFrameLength;
        private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
        private Supplier<? extends ChannelHandler> exchangeHandler;
        private PeerAuthenticator authenticator;
        private PeerTls tls;

        private Builder() {
        }

        /**
         * The group's secret: a peer must prove that it holds the same bytes (at least
         * {@value PeerAuthenticator#MIN_SECRET_BYTES}) before it gets anything but our handshake.
         */
        public Builder secret(byte[] secret) {
            this.authenticator = PeerAuthenticator.withSecret(secret);
            return this;
        }

        /** No secret: any peer that is insecure too is accepted. Only for trusted networks. */
        public Builder insecure() {
            this.authenticator = PeerAuthenticator.insecure();
            return this;
        }

        /** TLS (and with a trust store on both sides, mutual TLS) under the protocol; default none. */
        public Builder tls(PeerTls tls) {
            this.tls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        /**
         * The group this node belongs to, as the handshake carries it: the registry's {@code GroupId.hash()}
         * (1-255 bytes of UTF-8). Peers with another group are refused.
         */
        public Builder group(String group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /** This node's id, unique in the group, 1-255 bytes of UTF-8. */
        public Builder nodeId(String nodeId) {
            this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
            return this;
        }

        /** The port this node accepts peers on, told to peers in the handshake; 0 (the default) for none. */
        public Builder listenPort(int listenPort) {
            if (listenPort < 0 || listenPort > 0xFFFF) {
                throw new IllegalArgumentException("listenPort must be 0-65535, was " + listenPort);
            }
            this.listenPort = listenPort;
            return this;
        }

        public Builder layout(PieceLayout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
            return this;
        }

        /**
         * The largest frame (bytes after the length field) this node accepts; at least
         * {@link FrameLimits#minimum}. Default {@link FrameLimits#defaultFor}.
         */
        public Builder maxFrameLength(int maxFrameLength) {
            if (maxFrameLength <= 0) {
                throw new IllegalArgumentException("maxFrameLength must be > 0, was " + maxFrameLength);
            }
            this.maxFrameLength = maxFrameLength;
            return this;
        }

        /** How long to wait for the peer's handshake; default {@link #DEFAULT_HANDSHAKE_TIMEOUT}. */
        public Builder handshakeTimeout(Duration handshakeTimeout) {
            if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
                throw new IllegalArgumentException("handshakeTimeout must be > 0, was " + handshakeTimeout);
            }
            this.handshakeTimeout = handshakeTimeout;
            return this;
        }

        /**
         * Makes the handler added last, as {@value #EXCHANGE}, called once per channel (so it may return a new
         * handler each time, or a {@code @Sharable} one).
         */
        public Builder exchangeHandler(Supplier<? extends ChannelHandler> exchangeHandler) {
            this.exchangeHandler = Objects.requireNonNull(exchangeHandler, "exchangeHandler");
            return this;
        }

        public PeerPipeline build() {
            return new PeerPipeline(this);
        }
    }
}
