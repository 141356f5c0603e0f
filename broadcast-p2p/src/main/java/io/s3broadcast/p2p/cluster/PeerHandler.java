package io.s3broadcast.p2p.cluster;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.s3broadcast.p2p.protocol.Cancel;
import com.google.common.util.concurrent.RateLimiter;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.HandshakeCompleted;
import io.s3broadcast.p2p.protocol.HandshakeException;
import io.s3broadcast.p2p.protocol.KeepAlive;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.Request;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.PeerLimits;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exchange handler of one peer connection, last in its pipeline. It serves {@code REQUEST}s itself, on
 * the channel's event loop (zero-copy from the store, see {@link Connections#serve}); everything else goes to
 * the run's {@link Connections}, which decide on the run's event loop. It keeps only what it needs to route: the peer's node id,
 * set once the handshake is accepted.
 */
final class PeerHandler extends ChannelInboundHandlerAdapter implements PeerLink {

    private static final Logger LOG = LoggerFactory.getLogger(PeerHandler.class);
    /** The longest a connection stays open after its {@code GOODBYE(MISBEHAVIOUR)}, waiting for the peer to close. */
    static final long LINGER_MILLIS = 2_000;

    final Connections run;
    /** The member this side dialled, or null for an inbound connection. */
    final NodeInfo dialed;
    volatile ChannelHandlerContext ctx;
    /** Set on the channel's loop when the handshake completes; read by the run. */
    volatile String peerId;
    volatile int peerMaxFrameLength;
    /** Requests of the peer accepted and not yet written in full (queued or being written); on the channel's loop only. */
    int serving;
    /**
     * Requests that came while the peer was choked and wait for the run's loop to handle the messages before them
     * ({@link PieceServer}); on the channel's loop only.
     */
    int deferred;
    /** Accepted requests whose piece is not written yet, in order of arrival; on the channel's loop only. */
    final ArrayDeque<PieceServer.Queued> queued = new ArrayDeque<>();
    /** Whether a piece is being written to the peer (one at a time); on the channel's loop only. */
    boolean writing;
    /** Whether the next piece waits for the run's {@link UploadPacer}; on the channel's loop only. */
    boolean paced;
    /** The connection's socket send buffer; on the channel's loop only. */
    final SendBuffer sendBuffer = new SendBuffer();
    /** Bytes per second served to the peer at most, or null for no limit; on the channel's loop only. */
    private final RateLimiter serveRate;

    /** Nanoseconds: a {@code KEEP_ALIVE} after this long without sending; dead after this long without a byte. */
    private final long keepAliveNanos;
    private final long idleTimeoutNanos;

    PeerHandler(Connections run, NodeInfo dialed, PeerLimits limits) {
        this.run = run;
        this.dialed = dialed;
        long serveBytesPerSecond = limits.serveBytesPerSecond();
        this.serveRate = serveBytesPerSecond > 0 ? RateLimiter.create(serveBytesPerSecond) : null;
        this.keepAliveNanos = limits.keepAliveInterval().toNanos();
        this.idleTimeoutNanos = limits.peerIdleTimeout().toNanos();
    }

    /** The connection's liveness handler, first in its pipeline: keep-alives, and closing a silent connection. */
    LivenessHandler livenessHandler() {
        return new LivenessHandler(keepAliveNanos, idleTimeoutNanos, System::nanoTime, () -> peerId != null, this);
    }

    /** Whether {@code bytes} more may be served now under the per-peer serve rate. */
    @SuppressWarnings("UnstableApiUsage")
    boolean serveRate(int bytes) {
        return serveRate == null || serveRate.tryAcquire(bytes);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof HandshakeCompleted hc) {
            run.authenticated(ctx.channel());
            peerId = hc.peerNodeId();
            peerMaxFrameLength = hc.peerMaxFrameLength();
            run.execute(() -> run.connected(this));
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Request r) {
            run.serve(this, r.piece());
            return;
        }
        if (msg instanceof KeepAlive) {
            return;
        }
        if (msg instanceof Cancel c) {
            run.cancel(this, c.piece());
            return;
        }
        if (!(msg instanceof PeerMessage m)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            run.execute(() -> run.received(this, m));
        } catch (RuntimeException e) {
            ReferenceCountUtil.release(m);
        }
        if (m instanceof Goodbye) {
            // The peer is done with this connection, and may be waiting for this end to close it (see goodbye).
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        try {
            run.execute(() -> run.disconnected(this));
        } catch (RuntimeException e) {
            // the run's loop is shut down: nothing left to tell
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof HandshakeException e) {
            // The handshake handler closes the channel once its GOODBYE saying why is written.
            run.handshakeFailed(this, e);
            return;
        }
        LOG.debug("connection to {} ({}) failed: {}", peerId, ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    @Override
    public void send(PeerMessage message) {
        ctx.writeAndFlush(message, ctx.voidPromise());
    }

    @Override
    public void write(PeerMessage message) {
        ctx.write(message, ctx.voidPromise());
    }

    @Override
    public void flush() {
        ctx.flush();
    }

    @Override
    public int maxFrameLength() {
        return peerMaxFrameLength;
    }

    /**
     * Says {@code GOODBYE} and closes. After a {@code GOODBYE(MISBEHAVIOUR)} (the peer is alive, and may be sending
     * pieces or requests this node will not read) it is a lingering close: the connection stays open until the peer
     * closes it on reading the {@code GOODBYE} ({@link #channelRead}), {@link #LINGER_MILLIS} at most. Closed with the
     * peer's bytes unread, the socket resets the connection, and a reset throws away what the peer had not read yet,
     * the {@code GOODBYE} among them: the peer then could not tell a drop from a crash, and its orphan rule read again
     * from S3 what this node had ({@link DroppedPeers}).
     */
    @Override
    public void goodbye(Goodbye.Reason reason, String detail) {
        ChannelFuture written = ctx.writeAndFlush(new Goodbye(reason, detail));
        if (reason != Goodbye.Reason.MISBEHAVIOUR) {
            written.addListener(ChannelFutureListener.CLOSE);
            return;
        }
        written.addListener(f -> ctx.executor().schedule(() -> ctx.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS));
    }

    @Override
    public String toString() {
        return "peer " + peerId + " " + (ctx == null ? "" : ctx.channel().remoteAddress());
    }
}
