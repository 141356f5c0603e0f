package io.s3broadcast.p2p.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

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
 */
final class FrameDecoder extends ByteToMessageDecoder {

    private final int maxFrameLength;
    private boolean failed;

    FrameDecoder(int maxFrameLength) {
        if (maxFrameLength < FrameLimits.TYPE_BYTES) {
            throw new IllegalArgumentException("maxFrameLength must be > 0, was " + maxFrameLength);
        }
        this.maxFrameLength = maxFrameLength;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
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
        if (in.readableBytes() < FrameLimits.LENGTH_FIELD_BYTES + length) {
            return;
        }
        in.skipBytes(FrameLimits.LENGTH_FIELD_BYTES);
        out.add(in.readRetainedSlice((int) length));
    }
}
