package io.s3broadcast.p2p.cluster;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.s3broadcast.p2p.protocol.KeepAlive;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First in a peer connection's pipeline, so it sees every byte (before TLS and framing: a large piece arriving
 * slowly counts as traffic): applies the connection's {@link PeerLiveness} every half keep-alive interval on the
 * channel's loop. It sends {@code KEEP_ALIVE} once the handshake is done, and closes a connection that received
 * nothing for the idle timeout; the close is handled like any lost peer ({@link Connections#disconnected}).
 */
final class LivenessHandler extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(LivenessHandler.class);

    static final String NAME = "liveness";

    private final long keepAliveNanos;
    private final long idleTimeoutNanos;
    private final LongSupplier clock;
    private final BooleanSupplier established;
    private final Object peer;
    private PeerLiveness liveness;
    private ScheduledFuture<?> checks;

    /**
     * @param clock nanoseconds
     * @param established whether the handshake is done (keep-alives are sent only then)
     * @param peer names the peer in the log
     */
    LivenessHandler(long keepAliveNanos, long idleTimeoutNanos, LongSupplier clock, BooleanSupplier established,
            Object peer) {
        this.keepAliveNanos = keepAliveNanos;
        this.idleTimeoutNanos = idleTimeoutNanos;
        this.clock = clock;
        this.established = established;
        this.peer = peer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start(ctx);
        super.channelActive(ctx);
    }

    private void start(ChannelHandlerContext ctx) {
        if (liveness != null) {
            return;
        }
        liveness = new PeerLiveness(keepAliveNanos, idleTimeoutNanos, clock.getAsLong());
        long every = liveness.checkEveryNanos();
        checks = ctx.executor().scheduleAtFixedRate(() -> check(ctx), every, every, TimeUnit.NANOSECONDS);
    }

    private void check(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            stop();
            return;
        }
        PeerLiveness.Action action = liveness.check(clock.getAsLong());
        if (action == PeerLiveness.Action.CLOSE) {
            LOG.info("closing the connection to {}: nothing received for {} ms (peerIdleTimeout); its works go to the"
                    + " others", peer, TimeUnit.NANOSECONDS.toMillis(idleTimeoutNanos));
            stop();
            ctx.close();
        } else if (action == PeerLiveness.Action.KEEP_ALIVE && established.getAsBoolean()) {
            ctx.channel().writeAndFlush(KeepAlive.INSTANCE, ctx.channel().voidPromise());
        }
    }

    private void stop() {
        if (checks != null) {
            checks.cancel(false);
            checks = null;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (liveness != null) {
            liveness.received(clock.getAsLong());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (liveness != null) {
            liveness.sent(clock.getAsLong());
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }
}
