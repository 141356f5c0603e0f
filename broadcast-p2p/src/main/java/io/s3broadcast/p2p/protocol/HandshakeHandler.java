package io.s3broadcast.p2p.protocol;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends our {@link Handshake} as soon as the channel is active and checks the peer's: same version, same group,
 * same piece layout, another node id, and a frame limit that can take our largest message. On success it removes
 * itself and fires {@link HandshakeCompleted}; on a mismatch, or if no handshake arrives within the timeout, it
 * fires a {@link HandshakeException}, sends a {@link Goodbye} saying why, and closes the channel.
 *
 * <p>All state is touched on the channel's event loop only; the timeout is scheduled on {@code ctx.executor()}.
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {

    private final Handshake local;
    private final long timeoutNanos;
    private final int minimumFrameLength;

    private boolean started;
    private boolean finished;
    private ScheduledFuture<?> timeout;

    HandshakeHandler(Handshake local, long timeoutNanos) {
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("timeout must be > 0");
        }
        this.local = local;
        this.timeoutNanos = timeoutNanos;
        this.minimumFrameLength = FrameLimits.minimum(local.layout());
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
                refuse(ctx, Goodbye.Reason.HANDSHAKE_TIMEOUT,
                        "no handshake within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
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
        if (!(msg instanceof Handshake peer)) {
            ReferenceCountUtil.release(msg);
            refuse(ctx, Goodbye.Reason.PROTOCOL_ERROR, "expected a handshake, got " + msg);
            return;
        }
        Goodbye refusal = check(peer);
        if (refusal != null) {
            refuse(ctx, refusal.reason(), refusal.detail());
            return;
        }
        finished = true;
        cancelTimeout();
        ctx.pipeline().remove(this);
        ctx.fireUserEventTriggered(new HandshakeCompleted(local, peer));
    }

    /** Why we refuse {@code peer}, or {@code null} to accept it. */
    private Goodbye check(Handshake peer) {
        if (peer.version() != local.version()) {
            return new Goodbye(Goodbye.Reason.VERSION_MISMATCH,
                    "peer speaks version " + peer.version() + ", we speak " + local.version());
        }
        if (!peer.group().equals(local.group())) {
            return new Goodbye(Goodbye.Reason.GROUP_MISMATCH,
                    "peer is in group " + peer.group() + ", we are in " + local.group());
        }
        if (peer.objectSize() != local.objectSize() || peer.pieceSize() != local.pieceSize()) {
            return new Goodbye(Goodbye.Reason.LAYOUT_MISMATCH,
                    "peer has " + peer.objectSize() + " bytes in pieces of " + peer.pieceSize() + ", we have "
                            + local.objectSize() + " bytes in pieces of " + local.pieceSize());
        }
        if (peer.nodeId().equals(local.nodeId())) {
            return new Goodbye(Goodbye.Reason.SELF_CONNECTION, "peer has our node id " + local.nodeId());
        }
        if (peer.maxFrameLength() < minimumFrameLength) {
            return new Goodbye(Goodbye.Reason.FRAME_LIMIT_TOO_SMALL,
                    "peer accepts frames of " + peer.maxFrameLength() + " bytes, this layout needs "
                            + minimumFrameLength);
        }
        return null;
    }

    private void refuse(ChannelHandlerContext ctx, Goodbye.Reason reason, String detail) {
        finished = true;
        cancelTimeout();
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
