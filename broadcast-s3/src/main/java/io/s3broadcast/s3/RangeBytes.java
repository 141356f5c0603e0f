package io.s3broadcast.s3;

import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.function.IntConsumer;
import java.util.zip.CRC32C;

/**
 * The bytes {@code [start, end)} of one ranged GET, taken in order as the body streams in and put in their place
 * in the {@link PieceStore}: each chunk is fed to the CRC32C (and, when the store keeps digests, the SHA-256) of
 * the piece it belongs to and written through a {@link WriteGatherer}; when a piece's last byte is written the
 * piece is recorded in the store with its checksums.
 *
 * <p>The bytes may stop short of {@code end}: after {@link #cut} they stop at the cut, and what comes after it is
 * dropped. A piece only partly within the bytes taken (the first one of a range that starts within a piece, the
 * last one of a range cut within a piece) is a <em>part</em>: written, but neither hashed nor recorded.
 *
 * <p>Not thread-safe: its {@link PieceWriter} calls it under its lock.
 */
final class RangeBytes {

    private static final int[] NONE = new int[0];

    /** What one chunk did: the pieces it recorded that were new to the store, and the parts it finished. */
    record Taken(int[] stored, int[] parts) {
        static final Taken NOTHING = new Taken(NONE, NONE);
    }

    private final PieceStore store;
    private final PieceLayout layout;
    private final long start;
    private final long end;
    private final IntConsumer onPieceStored;
    private final WriteGatherer writes;
    private final CRC32C crc = new CRC32C();
    /** The SHA-256 of each piece, when the store keeps digests (a cluster broadcast); else null. */
    private final MessageDigest sha256;
    /** Bytes taken up to here. */
    private long position;
    /** Where the bytes stop: {@code end}, or earlier once cut. */
    private long cut;

    /**
     * @param start first byte; the first byte of a piece unless the first piece is a part
     * @param end one past the last byte; the end of a piece unless the last piece is a part
     * @param onPieceStored told of each piece recorded in the store and each part written
     */
    RangeBytes(PieceStore store, BufferPool buffers, long start, long end, IntConsumer onPieceStored) {
        this.store = store;
        this.layout = store.layout();
        this.start = start;
        this.end = end;
        this.onPieceStored = onPieceStored;
        this.writes = new WriteGatherer(store, buffers, start);
        this.sha256 = store.keepsDigests() ? Sha256.newDigest() : null;
        this.position = start;
        this.cut = end;
    }

    /** The byte taken up to. */
    long position() {
        return position;
    }

    /** Bytes taken so far. */
    long taken() {
        return position - start;
    }

    /** Bytes from the first to {@code end}: the bytes asked for. */
    long length() {
        return end - start;
    }

    /** Bytes that may still come before {@code end}, cut or not: a body with more has more than was asked for. */
    long remaining() {
        return end - position;
    }

    /** Whether every byte up to {@code end} is taken. */
    boolean complete() {
        return position == end;
    }

    /** Whether the bytes were cut short and every byte up to the cut is taken. */
    boolean cutReached() {
        return position == cut && cut < end;
    }

    /**
     * Stops the bytes at {@code at} instead of where they stop now, if not taken that far: true when they will stop
     * there (or have, for an {@code at} reached but not passed), false when {@code at} is taken already, is not
     * before the current stop, or is not after the first byte.
     */
    boolean cut(long at) {
        if (at <= position || at >= cut || at <= start) {
            return false;
        }
        cut = at;
        return true;
    }

    /** Forgets every byte taken (not what is written): the range starts over from its first byte. */
    void restart() {
        position = start;
        writes.restart(start);
        crc.reset();
        if (sha256 != null) {
            sha256.reset();
        }
    }

    /**
     * Takes in the next chunk (at most {@link #remaining()} bytes): hashes, writes and records as above. Bytes after
     * the cut are dropped.
     */
    Taken take(ByteBuffer chunk) throws IOException {
        int[] stored = NONE;
        int[] parts = NONE;
        while (chunk.hasRemaining() && position < cut) {
            int piece = layout.pieceAt(position);
            long pieceStart = layout.offset(piece);
            long pieceEnd = pieceStart + layout.length(piece);
            // A piece taken from its first byte is hashed; the first piece of a range that starts within it is a part.
            boolean whole = pieceStart >= start;
            long stop = Math.min(pieceEnd, cut);
            int n = (int) Math.min(chunk.remaining(), stop - position);
            ByteBuffer slice = chunk.slice();
            slice.limit(n);
            if (whole) {
                crc.update(slice.duplicate());
                if (sha256 != null) {
                    sha256.update(slice.duplicate());
                }
            }
            writes.add(slice);
            chunk.position(chunk.position() + n);
            position += n;
            if (position == pieceEnd && whole) {
                writes.flush();
                int value = (int) crc.getValue();
                crc.reset();
                byte[] digest = sha256 == null ? null : sha256.digest();
                if (store.completePiece(piece, value, digest)) {
                    stored = append(stored, piece);
                }
                onPieceStored.accept(piece);
            } else if (position == stop) {
                // The end of a part: written, for whoever split the piece to complete.
                writes.flush();
                crc.reset();
                if (sha256 != null) {
                    sha256.reset();
                }
                parts = append(parts, piece);
                onPieceStored.accept(piece);
            }
        }
        // What is left is after the cut: dropped.
        chunk.position(chunk.limit());
        return stored == NONE && parts == NONE ? Taken.NOTHING : new Taken(stored, parts);
    }

    /** Gives the gathering buffer back (once the bytes are done with, taken or not). */
    void release() {
        writes.release();
    }

    private static int[] append(int[] a, int v) {
        int[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }
}
