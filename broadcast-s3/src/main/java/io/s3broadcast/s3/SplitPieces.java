package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Pieces that hedging cut in two (or more) parts read by different GETs. No writer sees such a piece whole, so
 * none can hash it; once every part is written, the piece is read back from the store, hashed (CRC32C, and
 * SHA-256 when the store keeps digests) and recorded. A cut is announced ({@link #cutting}) before it is made,
 * so a part that ends at once cannot complete the piece before its other parts exist.
 */
final class SplitPieces {

    private final PieceStore store;
    // guarded by this: piece -> {parts, parts written}
    private final Map<Integer, int[]> parts = new HashMap<>();

    SplitPieces(PieceStore store) {
        this.store = store;
    }

    /** A cut within {@code piece} is about to be made: it has one part more. */
    synchronized void cutting(int piece) {
        parts.computeIfAbsent(piece, p -> new int[] {1, 0})[0]++;
    }

    /** The cut within {@code piece} announced was not made; returns whether the piece is now complete. */
    boolean notCut(int piece) throws IOException {
        synchronized (this) {
            int[] c = parts.get(piece);
            c[0]--;
            if (c[0] == 1) {
                // It was to be the first cut within the piece: the piece stays whole, its writer hashes it.
                parts.remove(piece);
                return false;
            }
            if (c[1] < c[0]) {
                return false;
            }
            parts.remove(piece);
        }
        return complete(piece);
    }

    /** A part of {@code piece} is written; returns true when that completed the piece in the store. */
    boolean partWritten(int piece) throws IOException {
        synchronized (this) {
            int[] c = parts.get(piece);
            if (c == null) {
                throw new IllegalStateException("piece " + piece + " has no announced cut but a part of it was written");
            }
            if (++c[1] < c[0]) {
                return false;
            }
            parts.remove(piece);
        }
        return complete(piece);
    }

    private boolean complete(int piece) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(store.layout().length(piece));
        store.readPiece(piece, bytes);
        bytes.flip();
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        byte[] digest = store.keepsDigests() ? Sha256.of(bytes) : null;
        return store.completePiece(piece, (int) crc.getValue(), digest);
    }

    /** Wraps an I/O failure of {@link #partWritten} the way the fetch reports it. */
    BroadcastException failed(int piece, IOException e) {
        return new BroadcastException.DestinationUnusable("cannot read back piece " + piece + " of " + store.tempFile()
                + " to check it after a hedged read: " + e + "; check the disk", e);
    }
}
