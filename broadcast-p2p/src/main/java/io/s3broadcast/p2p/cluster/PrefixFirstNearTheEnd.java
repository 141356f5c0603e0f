package io.s3broadcast.p2p.cluster;

import io.s3broadcast.internal.cluster.PieceSelector;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import java.util.BitSet;
import java.util.Locale;
import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;

/**
 * Piece order for an object whose end-to-end check is one sequential digest (the MD5 of a single-part upload's
 * ETag, or a full-object SHA checksum): the usual order ({@code delegate}, rarest first) until few pieces are
 * missing, then lowest index first. The digest is computed as the pieces land, but only over the file's
 * contiguous prefix; pieces taken in random order leave, on average, half the object to hash after the last one.
 * Filling the last holes in file order lets the hash follow them, so little is left when the last one lands.
 * Which pieces are candidates does not change, only their order; objects checked per part or per piece (a
 * multipart ETag, CRC checksums), whose tail is at most a part, keep the usual order.
 */
final class PrefixFirstNearTheEnd implements PieceSelector {

    /** Switch to file order when at most this share of the pieces is missing (and at least {@link #MIN_PIECES}). */
    static final int SHARE_DIVISOR = 8;
    static final int MIN_PIECES = 4;

    private final PieceSelector delegate;
    private final IntSupplier missing;
    private final int threshold;

    private PrefixFirstNearTheEnd(PieceSelector delegate, int pieceCount, IntSupplier missing) {
        this.delegate = delegate;
        this.missing = missing;
        this.threshold = Math.max(MIN_PIECES, pieceCount / SHARE_DIVISOR);
    }

    /**
     * {@code delegate}, near the end in file order when {@code object}'s end-to-end check is a sequential digest.
     *
     * @param missing the pieces this node does not hold yet
     */
    static PieceSelector of(PieceSelector delegate, ObjectInfo object, int pieceCount, IntSupplier missing) {
        return sequentialDigest(object) ? new PrefixFirstNearTheEnd(delegate, pieceCount, missing) : delegate;
    }

    /** The object is checked end to end by one digest over its bytes in order. */
    static boolean sequentialDigest(ObjectInfo object) {
        return object.eTagDigest().map(ObjectChecksum::fullObject).orElse(false)
                || object.checksum().filter(c -> c.fullObject() && !c.algorithm().toUpperCase(Locale.ROOT).startsWith("CRC"))
                        .isPresent();
    }

    @Override
    public int[] select(BitSet candidates, IntUnaryOperator availability, int limit) {
        if (missing.getAsInt() > threshold) {
            return delegate.select(candidates, availability, limit);
        }
        int[] out = new int[Math.min(limit, candidates.cardinality())];
        int n = 0;
        for (int p = candidates.nextSetBit(0); p >= 0 && n < out.length; p = candidates.nextSetBit(p + 1)) {
            out[n++] = p;
        }
        return out;
    }
}
