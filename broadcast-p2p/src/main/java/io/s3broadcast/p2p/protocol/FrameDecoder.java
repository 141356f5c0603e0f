package io.s3broadcast.p2p.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Cuts the byte stream into frames: reads the 4-byte big-endian length, checks it against the limit before
 * buffering anything for the frame, and passes on the {@code length} bytes after it (type and body) as one
 * {@link ByteBuf}.
 *
 * <p>A length of 0 or above the limit is a {@link ProtocolException}: the decoder discards the rest of the input,
 * fires the exception and closes the channel.
 *
 * <p>Buffer ownership: each frame passed on is a retained slice of the cumulation buffer, owned by the next
 * handler, which must release it ({@link MessageDecoder} does).
 *
 * <p>Reads: once the peer has proved the secret, a read that ends inside a long frame may stop the channel reading
 * for a while ({@link ReadPacing}: auto-read off, back on when the wait is over), so the next read finds a batch of
 * the frame's bytes rather than the first few.
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private final int maxFrameLength;
    private final ReadPacing pacing;
    private boolean failed;
    private boolean authenticated;
    /** Bytes of the incomplete frame still to come when the last decode ended (0: none). */
    private long pending;
    private ScheduledFuture<?> resume;

    /** A decoder whose reads are not paced. */
    FrameDecoder(int maxFrameLength) {
        this(maxFrameLength, ReadPacing.off());
    }

    FrameDecoder(int maxFrameLength, ReadPacing pacing) {
        if (maxFrameLength < FrameLimits.TYPE_BYTES) {
            throw new IllegalArgumentException("maxFrameLength must be > 0, was " + maxFrameLength);
        }
        this.maxFrameLength = maxFrameLength;
        this.pacing = pacing;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof ByteBuf bytes) {
            pacing.received(bytes.readableBytes());
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        super.channelReadComplete(ctx);
        long wait = pacing.waitNanos(pending);
        if (wait > 0 && resume == null && ctx.channel().isActive() && authenticated(ctx)) {
            ctx.channel().config().setAutoRead(false);
            resume = ctx.executor().schedule(() -> {
                resume = null;
                ctx.channel().config().setAutoRead(true);
            }, wait, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (resume != null) {
            resume.cancel(false);
            resume = null;
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        pending = 0;
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < FrameLimits.LENGTH_FIELD_BYTES) {
            return;
        }
        long length = in.getUnsignedInt(in.readerIndex());
        if (length == 0 || length > maxFrameLength) {
            failed = true;
            in.skipBytes(in.readableBytes());
            ctx.fireExceptionCaught(new ProtocolException(length == 0
                    ? "empty frame (no message type)"
                    : "frame of " + length + " bytes exceeds the limit of " + maxFrameLength + " bytes"));
            ctx.close();
            return;
        }
        int frameBytes = FrameLimits.LENGTH_FIELD_BYTES + (int) length;
        if (in.readableBytes() < frameBytes) {
            pending = frameBytes - in.readableBytes();
            if (pending > in.writableBytes()) {
                int capacity = reservation(in, frameBytes, authenticated(ctx));
                if (capacity > 0) {
                    in.capacity(capacity);
                }
            }
            return;
        }
        in.skipBytes(FrameLimits.LENGTH_FIELD_BYTES);
        out.add(in.readRetainedSlice((int) length));
    }

    /** Whether the handshake handler has removed itself: the peer proved the group secret. Once true, true. */
    private boolean authenticated(ChannelHandlerContext ctx) {
        if (!authenticated) {
            authenticated = ctx.pipeline().get(PeerPipeline.HANDSHAKE) == null;
        }
        return authenticated;
    }

    /**
     * The capacity to give the cumulation {@code in} so the rest of an incomplete frame of {@code frameBytes} fits
     * at once, or 0 to leave it be. Left to grow as bytes come, it doubles up to twice the frame, copying what it
     * holds each time (at N = 16 on 2.5 MB/s links, 0.24 CPU-s per node: docs/results.md, session 28). Only once the
     * peer has proved the group secret ({@code authenticated}: the handshake handler has removed itself), so that a
     * stranger cannot make a node hold a frame's worth of memory it never sends; and only while the cumulation is this
     * decoder's alone (an earlier frame's slice may still share it, and Netty then moves the bytes itself).
     */
    static int reservation(ByteBuf in, int frameBytes, boolean authenticated) {
        int missing = frameBytes - in.readableBytes();
        if (!authenticated || missing <= in.writableBytes() || in.refCnt() != 1 || in.isReadOnly()
                || missing > in.maxWritableBytes()) {
            return 0;
        }
        return in.writerIndex() + missing;
    }
}
