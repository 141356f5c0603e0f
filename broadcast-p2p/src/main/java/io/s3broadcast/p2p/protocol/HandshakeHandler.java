package io.s3broadcast.p2p.protocol;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.s3broadcast.spi.PieceLayout;
import java.util.concurrent.TimeUnit;

/**
 * Runs the handshake of one connection: both sides send a {@link Handshake} at once; the dialling side answers the
 * peer's with its {@link Auth}; the accepting side checks that proof and only then sends its own; the dialling side
 * checks it. Each side then checks the peer's layout and frame limit. On success the handler removes itself and
 * fires {@link HandshakeCompleted}; on a mismatch, a bad proof, or if the handshake is not done within the timeout,
 * it fires a {@link HandshakeException}, sends a {@link Goodbye} saying why, and closes the channel.
 *
 * <p>All state is touched on the channel's event loop only; the timeout is scheduled on {@code ctx.executor()}.
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {

    private final Handshake local;
    private final PeerPipeline.Side side;
    private final PeerAuthenticator authenticator;
    private final PieceLayout layout;
    private final int maxFrameLength;
    private final int listenPort;
    private final long timeoutNanos;
    private final int minimumFrameLength;

    private boolean started;
    private boolean finished;
    private Handshake peer;
    private ScheduledFuture<?> timeout;

    HandshakeHandler(Handshake local, PeerPipeline.Side side, PeerAuthenticator authenticator, PieceLayout layout,
            int maxFrameLength, int listenPort, long timeoutNanos) {
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("timeout must be > 0");
        }
        this.local = local;
        this.side = side;
        this.authenticator = authenticator;
        this.layout = layout;
        this.maxFrameLength = maxFrameLength;
        this.listenPort = listenPort;
        this.timeoutNanos = timeoutNanos;
        this.minimumFrameLength = FrameLimits.minimum(layout);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start(ctx);
        ctx.fireChannelActive();
    }

    private void start(ChannelHandlerContext ctx) {
        if (started) {
            return;
        }
        started = true;
        ctx.writeAndFlush(local).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        timeout = ctx.executor().schedule(() -> {
            if (!finished) {
                refuse(ctx, Goodbye.Reason.HANDSHAKE_TIMEOUT, "no " + (peer == null ? "handshake" : "authentication")
                        + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
            }
        }, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (finished) {
            // Refused: the channel is closing, drop what still comes in.
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof Goodbye g) {
            // The peer refused us; say nothing back.
            finished = true;
            cancelTimeout();
            ctx.fireExceptionCaught(new HandshakeException(g.reason(), "handshake with "
                    + ctx.channel().remoteAddress() + " refused by the peer: " + g.reason() + " " + g.detail()));
            ctx.close();
            return;
        }
        if (peer == null) {
            if (!(msg instanceof Handshake h)) {
                ReferenceCountUtil.release(msg);
                refuse(ctx, Goodbye.Reason.PROTOCOL_ERROR, "expected a handshake, got " + msg);
                return;
            }
            Goodbye refusal = checkHandshake(h);
            if (refusal != null) {
                refuse(ctx, refusal.reason(), refusal.detail());
                return;
            }
            peer = h;
            if (side == PeerPipeline.Side.DIALER) {
                ctx.writeAndFlush(ourAuth()).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            }
            return;
        }
        if (!(msg instanceof Auth auth)) {
            ReferenceCountUtil.release(msg);
            refuse(ctx, Goodbye.Reason.PROTOCOL_ERROR, "expected AUTH, got " + msg);
            return;
        }
        if (!authenticator.verify(side == PeerPipeline.Side.ACCEPTOR, peer, local, auth)) {
            refuse(ctx, Goodbye.Reason.AUTH_FAILED, "peer " + peer.nodeId() + " did not prove that it holds the"
                    + " group secret");
            return;
        }
        Goodbye refusal = checkAuth(auth);
        if (refusal != null) {
            refuse(ctx, refusal.reason(), refusal.detail());
            return;
        }
        if (side == PeerPipeline.Side.ACCEPTOR) {
            ctx.writeAndFlush(ourAuth()).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        }
        finished = true;
        cancelTimeout();
        ctx.pipeline().remove(this);
        ctx.fireUserEventTriggered(new HandshakeCompleted(local, peer, auth, layout));
    }

    private Auth ourAuth() {
        return authenticator.prove(side == PeerPipeline.Side.DIALER, local, peer, layout.objectSize(),
                layout.pieceSize(), maxFrameLength, listenPort);
    }

    /** Why we refuse a peer with handshake {@code h}, or {@code null} to go on to its proof. */
    private Goodbye checkHandshake(Handshake h) {
        if (h.version() != local.version()) {
            return new Goodbye(Goodbye.Reason.VERSION_MISMATCH,
                    "peer speaks version " + h.version() + ", we speak " + local.version());
        }
        if (!h.group().equals(local.group())) {
            return new Goodbye(Goodbye.Reason.GROUP_MISMATCH,
                    "peer is in group " + h.group() + ", we are in " + local.group());
        }
        if (h.nodeId().equals(local.nodeId())) {
            return new Goodbye(Goodbye.Reason.SELF_CONNECTION, "peer has our node id " + local.nodeId());
        }
        if (h.authenticated() != local.authenticated()) {
            return new Goodbye(Goodbye.Reason.AUTH_FAILED, local.authenticated()
                    ? "peer " + h.nodeId() + " runs without a secret (insecure); this node requires the group secret"
                    : "peer " + h.nodeId() + " requires a group secret; this node runs insecure, without one");
        }
        return null;
    }

    /** Why we refuse an authenticated peer that sent {@code auth}, or {@code null} to accept it. */
    private Goodbye checkAuth(Auth auth) {
        if (auth.objectSize() != layout.objectSize() || auth.pieceSize() != layout.pieceSize()) {
            return new Goodbye(Goodbye.Reason.LAYOUT_MISMATCH,
                    "peer has " + auth.objectSize() + " bytes in pieces of " + auth.pieceSize() + ", we have "
                            + layout.objectSize() + " bytes in pieces of " + layout.pieceSize());
        }
        if (auth.maxFrameLength() < minimumFrameLength) {
            return new Goodbye(Goodbye.Reason.FRAME_LIMIT_TOO_SMALL,
                    "peer accepts frames of " + auth.maxFrameLength() + " bytes, this layout needs "
                            + minimumFrameLength);
        }
        return null;
    }

    private void refuse(ChannelHandlerContext ctx, Goodbye.Reason reason, String detail) {
        finished = true;
        cancelTimeout();
        // The exchange handler hears why first; it must not close the channel itself (the goodbye would be cut
        // off): this handler closes it once the goodbye is written.
        ctx.fireExceptionCaught(new HandshakeException(reason, "handshake with " + ctx.channel().remoteAddress()
                + " failed: " + detail));
        ctx.writeAndFlush(new Goodbye(reason, detail)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelTimeout();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelTimeout();
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }
}
