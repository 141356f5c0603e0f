package io.s3broadcast.p2p.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * Sends a {@link Piece} straight from the piece store's file: writes the frame header (through the encoder),
 * then the data as a separate write. The data goes as a {@code FileRegion} (zero-copy, {@code sendfile} or
 * {@code transferTo}) when the channel can take one, or else as a buffer read from the file.
 *
 * <p>Both writes happen together on the event loop, so nothing can come between header and data. Neither is
 * flushed: the caller flushes, as for any write.
 *
 * <p>The file channel is only read at absolute positions and is never closed here: it must stay open until the
 * returned future completes.
 */
public final class PieceWriter {

    private PieceWriter() {
    }

    /**
     * Whether {@code channel} can send a {@code FileRegion} as is: a socket channel with no {@link SslHandler} (TLS
     * must see the bytes to encrypt them).
     */
    public static boolean canZeroCopy(Channel channel) {
        return channel instanceof SocketChannel && channel.pipeline().get(SslHandler.class) == null;
    }

    /**
     * Writes piece {@code piece} of {@code store}, with the CRC32C the store recorded for it, zero-copy if
     * {@link #canZeroCopy} says the channel can. Fails, writing nothing, if the store lacks the piece.
     *
     * @return the future of the data write; see {@link #write(ChannelHandlerContext, int, int, FileChannel, long, int, boolean)}
     */
    public static ChannelFuture write(ChannelHandlerContext ctx, PieceStore store, int piece) {
        int crc32c;
        try {
            crc32c = store.crc32c(piece);
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            return ctx.newFailedFuture(e);
        }
        PieceLayout layout = store.layout();
        return write(ctx, piece, crc32c, store.channel(), layout.offset(piece), layout.length(piece));
    }

    /**
     * Writes piece {@code piece}, whose {@code length} bytes start at {@code position} in {@code file} and have
     * CRC32C {@code crc32c}, zero-copy if {@link #canZeroCopy} says the channel can.
     *
     * @return the future of the data write; see {@link #write(ChannelHandlerContext, int, int, FileChannel, long, int, boolean)}
     */
    public static ChannelFuture write(ChannelHandlerContext ctx, int piece, int crc32c, FileChannel file,
            long position, int length) {
        return write(ctx, piece, crc32c, file, position, length, canZeroCopy(ctx.channel()));
    }

    /**
     * Writes piece {@code piece}, whose {@code length} bytes start at {@code position} in {@code file} and have
     * CRC32C {@code crc32c}: a {@code FileRegion} if {@code zeroCopy}, else a buffer read from the file now.
     *
     * <p>If the file is too short or cannot be read, nothing is written and the future fails. If the data write
     * (or the header write) fails, the stream is broken, so the channel is closed.
     *
     * @return the future of the data write, which completes when the whole piece is written
     */
    public static ChannelFuture write(ChannelHandlerContext ctx, int piece, int crc32c, FileChannel file,
            long position, int length, boolean zeroCopy) {
        PieceHeader header = new PieceHeader(piece, crc32c, length);
        Object data;
        try {
            if (position < 0 || position + length > file.size()) {
                throw new EOFException("piece " + piece + " at [" + position + ", " + (position + length)
                        + ") is beyond the end of the file (" + file.size() + " bytes)");
            }
            data = zeroCopy ? new SharedFileRegion(file, position, length) : read(ctx, file, position, length);
        } catch (IOException e) {
            return ctx.newFailedFuture(e);
        }
        ctx.write(header).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        return ctx.write(data).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    private static ByteBuf read(ChannelHandlerContext ctx, FileChannel file, long position, int length)
            throws IOException {
        ByteBuf buf = ctx.alloc().ioBuffer(length);
        boolean ok = false;
        try {
            while (buf.writerIndex() < length) {
                int n = buf.writeBytes(file, position + buf.writerIndex(), length - buf.writerIndex());
                if (n < 0) {
                    throw new EOFException("file ended while reading piece at " + position);
                }
            }
            ok = true;
            return buf;
        } finally {
            if (!ok) {
                buf.release();
            }
        }
    }
}
