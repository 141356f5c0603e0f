package io.s3broadcast.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.traffic.GlobalTrafficShapingHandler;
import io.s3broadcast.testkit.proxy.Throttle;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One in-process node's emulated link on its peer channels: what it sends is limited to its upload rate by one
 * Netty {@link GlobalTrafficShapingHandler} shared by all its channels, and what it receives is charged to its
 * download {@link Throttle}, which the S3 proxy also charges for the node's S3 bytes, so S3 and peers share one
 * download link as on a real machine. Reading pauses while the download is in debt, and TCP backpressure then
 * slows the sender. Each channel's receive buffer is made small so that the kernel's buffering does not hide the
 * limit.
 */
final class PeerLinkShaper {

    /** Receive buffer of a shaped channel: about 25 ms at 10 MB/s. */
    static final int RECEIVE_BUFFER = 256 * 1024;

    private final GlobalTrafficShapingHandler upload;
    private final Throttle download;

    PeerLinkShaper(ScheduledExecutorService timer, long uploadRate, Throttle download) {
        this.upload = uploadRate > 0 ? new GlobalTrafficShapingHandler(timer, uploadRate, 0, 100) : null;
        this.download = download;
    }

    /** A handler to put first in one of the node's channels. */
    ChannelHandler newHandler() {
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.config().setOption(ChannelOption.SO_RCVBUF, RECEIVE_BUFFER);
                if (download != null && download.rate() > 0) {
                    ch.pipeline().addFirst("link-download", new DownloadLimiter(download));
                }
                if (upload != null) {
                    ch.pipeline().addFirst("link-upload", upload);
                }
            }
        };
    }

    void release() {
        if (upload != null) {
            upload.release();
        }
    }

    /** Charges every received buffer to the download link; pauses reading while the link is in debt. */
    static final class DownloadLimiter extends ChannelInboundHandlerAdapter {
        private final Throttle link;
        private boolean paused;

        DownloadLimiter(Throttle link) {
            this.link = link;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            long size = msg instanceof ByteBuf b ? b.readableBytes()
                    : msg instanceof ByteBufHolder h ? h.content().readableBytes() : 0;
            long wait = size > 0 ? link.chargeNow(size) : 0;
            ctx.fireChannelRead(msg);
            if (wait > 0 && !paused) {
                paused = true;
                ctx.channel().config().setAutoRead(false);
                ctx.executor().schedule(() -> resume(ctx), wait, TimeUnit.NANOSECONDS);
            }
        }

        private void resume(ChannelHandlerContext ctx) {
            long wait = link.chargeNow(0);
            if (wait > 0) {
                ctx.executor().schedule(() -> resume(ctx), wait, TimeUnit.NANOSECONDS);
                return;
            }
            paused = false;
            ctx.channel().config().setAutoRead(true);
            ctx.read();
        }
    }
}
