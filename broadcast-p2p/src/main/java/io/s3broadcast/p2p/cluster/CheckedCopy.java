package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;

/**
 * One round of pieces read again from S3 ({@link Disputes}), copied into the store where it differs: for each
 * piece, S3's SHA-256 ({@code truth}), whether the store held other bytes that S3's replaced ({@code replaced}),
 * and whether the piece was missing and S3's bytes fill it ({@code added}). Made on a disk thread.
 *
 * @param pieces the pieces of the round, in order
 */
record CheckedCopy(int[] pieces, byte[][] truth, boolean[] replaced, boolean[] added) {

    /** Puts S3's bytes of {@code todo} ({@code check}) into {@code store} wherever the store's differ or are missing. */
    static CheckedCopy copy(Disputes.Reread check, BitSet todo, PieceStore store) throws IOException {
        int n = todo.cardinality();
        CheckedCopy c = new CheckedCopy(new int[n], new byte[n][], new boolean[n], new boolean[n]);
        int k = 0;
        for (int i = todo.nextSetBit(0); i >= 0; i = todo.nextSetBit(i + 1), k++) {
            c.pieces[k] = i;
            c.truth[k] = check.digest(i);
            boolean present = store.hasPiece(i);
            if (!present || !Arrays.equals(store.sha256(i), c.truth[k])) {
                c.added[k] = check.copyInto(store, i);
                c.replaced[k] = present;
            }
        }
        return c;
    }
}
