package io.s3broadcast.spi;

import java.util.Arrays;

/**
 * Which of an object's pieces a node holds. Not thread-safe: an owner that shares one guards it.
 *
 * <p>The wire form ({@link #toByteArray()}) follows BitTorrent: the high bit of byte 0 is piece 0, and
 * spare bits in the last byte are zero.
 */
public final class Bitfield {

    private final int size;
    private final long[] words;
    private int cardinality;

    public Bitfield(int size) {
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0, was " + size);
        }
        this.size = size;
        this.words = new long[(size + 63) >>> 6];
    }

    /** A bitfield with every piece set. */
    public static Bitfield full(int size) {
        Bitfield b = new Bitfield(size);
        b.setRange(0, size);
        return b;
    }

    /** Parses the wire form; rejects a wrong length or spare bits that are set. */
    public static Bitfield fromByteArray(byte[] bytes, int size) {
        Bitfield b = new Bitfield(size);
        if (bytes.length != (size + 7) / 8) {
            throw new IllegalArgumentException("bitfield of " + size + " pieces needs " + ((size + 7) / 8)
                    + " bytes, got " + bytes.length);
        }
        for (int i = 0; i < bytes.length; i++) {
            int v = bytes[i] & 0xff;
            for (int bit = 0; bit < 8; bit++) {
                if ((v & (0x80 >>> bit)) != 0) {
                    int piece = i * 8 + bit;
                    if (piece >= size) {
                        throw new IllegalArgumentException("bitfield has spare bit " + piece + " set beyond " + size + " pieces");
                    }
                    b.set(piece);
                }
            }
        }
        return b;
    }

    public int size() {
        return size;
    }

    public boolean get(int piece) {
        check(piece);
        return (words[piece >>> 6] & (1L << piece)) != 0;
    }

    /** Sets the bit; returns true when it was not set before. */
    public boolean set(int piece) {
        check(piece);
        long mask = 1L << piece;
        int w = piece >>> 6;
        if ((words[w] & mask) != 0) {
            return false;
        }
        words[w] |= mask;
        cardinality++;
        return true;
    }

    /** Clears the bit; returns true when it was set before. */
    public boolean clear(int piece) {
        check(piece);
        long mask = 1L << piece;
        int w = piece >>> 6;
        if ((words[w] & mask) == 0) {
            return false;
        }
        words[w] &= ~mask;
        cardinality--;
        return true;
    }

    /** Sets pieces [from, to). */
    public void setRange(int from, int to) {
        if (from < 0 || to > size || from > to) {
            throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") outside [0, " + size + ")");
        }
        for (int i = from; i < to; i++) {
            set(i);
        }
    }

    /** Number of pieces set. */
    public int cardinality() {
        return cardinality;
    }

    public boolean isComplete() {
        return cardinality == size;
    }

    /** The first clear piece at or after {@code from}, or -1. */
    public int nextClear(int from) {
        for (int i = Math.max(0, from); i < size; i++) {
            if ((words[i >>> 6] & (1L << i)) == 0) {
                return i;
            }
        }
        return -1;
    }

    /** The first set piece at or after {@code from}, or -1. */
    public int nextSet(int from) {
        if (from >= size) {
            return -1;
        }
        int w = Math.max(0, from) >>> 6;
        long word = words[w] & (-1L << Math.max(0, from));
        while (true) {
            if (word != 0) {
                int i = (w << 6) + Long.numberOfTrailingZeros(word);
                return i < size ? i : -1;
            }
            if (++w == words.length) {
                return -1;
            }
            word = words[w];
        }
    }

    public Bitfield copy() {
        Bitfield b = new Bitfield(size);
        System.arraycopy(words, 0, b.words, 0, words.length);
        b.cardinality = cardinality;
        return b;
    }

    public byte[] toByteArray() {
        byte[] out = new byte[(size + 7) / 8];
        for (int piece = nextSet(0); piece >= 0; piece = nextSet(piece + 1)) {
            out[piece >>> 3] |= (byte) (0x80 >>> (piece & 7));
        }
        return out;
    }

    private void check(int piece) {
        if (piece < 0 || piece >= size) {
            throw new IndexOutOfBoundsException("piece " + piece + " outside [0, " + size + ")");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bitfield other && other.size == size && Arrays.equals(other.words, words);
    }

    @Override
    public int hashCode() {
        return 31 * size + Arrays.hashCode(words);
    }

    @Override
    public String toString() {
        return "Bitfield[" + cardinality + "/" + size + "]";
    }
}
