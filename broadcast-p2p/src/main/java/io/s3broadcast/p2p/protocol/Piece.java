package io.s3broadcast.p2p.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The whole of one piece, answering a {@link Request}.
 *
 * <p>Body: {@code piece} (int32), {@code crc32c} (int32, the CRC32C of the data), then the data, exactly
 * {@code layout.length(piece)} bytes (the decoder checks this; the encoder cannot, it does not know the layout).
 *
 * <p>A {@code Piece} owns one reference to its {@link #content() data}. A decoded {@code Piece} is a slice of the
 * received frame, and whoever reads it from the pipeline must {@link #release()} it. Writing a {@code Piece}
 * hands the reference to the encoder, which sends the data without copying it. To send a piece straight from a
 * file, use {@link PieceWriter} instead.
 *
 * <p>The decoder does not check the CRC, because a corrupt piece is not a protocol error: the receiver calls
 * {@link #crcMatches()}, drops a bad piece and asks elsewhere.
 */
public final class Piece extends DefaultByteBufHolder implements PeerMessage {

    private final int piece;
    private final int crc32c;

    /** Takes ownership of {@code data}'s readable bytes. */
    public Piece(int piece, int crc32c, ByteBuf data) {
        super(data);
        if (piece < 0) {
            throw new IllegalArgumentException("piece must be >= 0, was " + piece);
        }
        this.piece = piece;
        this.crc32c = crc32c;
    }

    public int piece() {
        return piece;
    }

    /** The CRC32C the sender declares for the data. */
    public int crc32c() {
        return crc32c;
    }

    /** The data; same as {@link #content()}. */
    public ByteBuf data() {
        return content();
    }

    /** Whether the CRC32C of the data is {@link #crc32c()}. */
    public boolean crcMatches() {
        return crc32c(content()) == crc32c;
    }

    /** CRC32C of {@code buf}'s readable bytes, leaving its indexes alone. */
    public static int crc32c(ByteBuf buf) {
        CRC32C crc = new CRC32C();
        int index = buf.readerIndex();
        int length = buf.readableBytes();
        if (buf.nioBufferCount() > 0) {
            for (ByteBuffer part : buf.nioBuffers(index, length)) {
                crc.update(part);
            }
        } else {
            byte[] chunk = new byte[Math.min(length, 8192)];
            for (int done = 0; done < length; done += chunk.length) {
                int n = Math.min(chunk.length, length - done);
                buf.getBytes(index + done, chunk, 0, n);
                crc.update(chunk, 0, n);
            }
        }
        return (int) crc.getValue();
    }

    @Override
    public MessageType type() {
        return MessageType.PIECE;
    }

    @Override
    public Piece copy() {
        return replace(content().copy());
    }

    @Override
    public Piece duplicate() {
        return replace(content().duplicate());
    }

    @Override
    public Piece retainedDuplicate() {
        return replace(content().retainedDuplicate());
    }

    @Override
    public Piece replace(ByteBuf content) {
        return new Piece(piece, crc32c, content);
    }

    @Override
    public Piece retain() {
        super.retain();
        return this;
    }

    @Override
    public Piece retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public Piece touch() {
        super.touch();
        return this;
    }

    @Override
    public Piece touch(Object hint) {
        super.touch(hint);
        return this;
    }

    /** Equal when piece, CRC and data bytes are equal. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Piece other && piece == other.piece && crc32c == other.crc32c && super.equals(o);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * piece + crc32c) + super.hashCode();
    }

    @Override
    public String toString() {
        return "Piece[piece=" + piece + ", crc32c=" + String.format("%08x", crc32c) + ", length="
                + (refCnt() > 0 ? content().readableBytes() : "released") + "]";
    }
}
