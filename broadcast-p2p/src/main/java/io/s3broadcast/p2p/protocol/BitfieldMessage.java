package io.s3broadcast.p2p.protocol;

import io.s3broadcast.spi.Bitfield;
import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * Which pieces the sender has, sent once right after the handshake. One bit per piece in BitTorrent order: the
 * high bit of byte 0 is piece 0, the low bit of byte 0 is piece 7. The body is exactly
 * {@code ceil(pieceCount / 8)} bytes and the spare bits at the end of the last byte are zero.
 */
public final class BitfieldMessage implements PeerMessage {

    private final int pieceCount;
    private final byte[] bits;

    private BitfieldMessage(int pieceCount, byte[] bits) {
        this.pieceCount = pieceCount;
        this.bits = bits;
    }

    /**
     * A bitfield of {@code pieceCount} pieces from its wire bytes (copied).
     *
     * @throws IllegalArgumentException if {@code bits} has the wrong length or a spare bit set
     */
    public static BitfieldMessage of(int pieceCount, byte[] bits) {
        String problem = check(pieceCount, bits);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return new BitfieldMessage(pieceCount, bits.clone());
    }

    /** The bitfield of {@code pieceCount} pieces that has piece {@code p} iff {@code has.test(p)}. */
    public static BitfieldMessage of(int pieceCount, IntPredicate has) {
        if (pieceCount < 0) {
            throw new IllegalArgumentException("pieceCount must be >= 0, was " + pieceCount);
        }
        byte[] bits = new byte[byteLength(pieceCount)];
        for (int piece = 0; piece < pieceCount; piece++) {
            if (has.test(piece)) {
                bits[piece >>> 3] |= (byte) (0x80 >>> (piece & 7));
            }
        }
        return new BitfieldMessage(pieceCount, bits);
    }

    /** The message for {@code bitfield} (same bit order; this is {@link Bitfield#toByteArray()}). */
    public static BitfieldMessage of(Bitfield bitfield) {
        return new BitfieldMessage(bitfield.size(), bitfield.toByteArray());
    }

    /** Takes {@code bits} without copying; for the decoder, which made them and checked them. */
    static BitfieldMessage wrap(int pieceCount, byte[] bits) {
        assert check(pieceCount, bits) == null;
        return new BitfieldMessage(pieceCount, bits);
    }

    /** Wire bytes for {@code pieceCount} pieces. */
    public static int byteLength(int pieceCount) {
        return (int) ((pieceCount + 7L) >>> 3);
    }

    /** What is wrong with {@code bits} as a bitfield of {@code pieceCount} pieces, or {@code null}. */
    static String check(int pieceCount, byte[] bits) {
        if (pieceCount < 0) {
            return "pieceCount must be >= 0, was " + pieceCount;
        }
        if (bits.length != byteLength(pieceCount)) {
            return "a bitfield of " + pieceCount + " pieces has " + byteLength(pieceCount) + " bytes, not " + bits.length;
        }
        if (bits.length > 0 && (bits[bits.length - 1] & spareBitsMask(pieceCount)) != 0) {
            return "spare bits set at the end of a bitfield of " + pieceCount + " pieces";
        }
        return null;
    }

    /** The bits of the last byte that stand for no piece. */
    static int spareBitsMask(int pieceCount) {
        int used = pieceCount & 7;
        return used == 0 ? 0 : 0xFF >>> used;
    }

    public int pieceCount() {
        return pieceCount;
    }

    public boolean has(int piece) {
        if (piece < 0 || piece >= pieceCount) {
            throw new IndexOutOfBoundsException("piece " + piece + " outside [0, " + pieceCount + ")");
        }
        return (bits[piece >>> 3] & (0x80 >>> (piece & 7))) != 0;
    }

    /** How many pieces the sender has. */
    public int cardinality() {
        int n = 0;
        for (byte b : bits) {
            n += Integer.bitCount(b & 0xFF);
        }
        return n;
    }

    /** True when the sender has every piece. */
    public boolean isComplete() {
        return cardinality() == pieceCount;
    }

    /** A new {@link Bitfield} with the pieces of this message. */
    public Bitfield toBitfield() {
        return Bitfield.fromByteArray(bits, pieceCount);
    }

    /** The wire bytes (a copy). */
    public byte[] toByteArray() {
        return bits.clone();
    }

    int byteLength() {
        return bits.length;
    }

    byte[] bitsUnsafe() {
        return bits;
    }

    @Override
    public MessageType type() {
        return MessageType.BITFIELD;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BitfieldMessage other && pieceCount == other.pieceCount && Arrays.equals(bits, other.bits);
    }

    @Override
    public int hashCode() {
        return 31 * pieceCount + Arrays.hashCode(bits);
    }

    @Override
    public String toString() {
        return "BitfieldMessage[has " + cardinality() + " of " + pieceCount + " pieces]";
    }
}
