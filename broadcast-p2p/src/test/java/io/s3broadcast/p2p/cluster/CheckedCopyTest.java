package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A round read again from S3 goes into the store only where the store's bytes differ or are missing. */
class CheckedCopyTest {

    @TempDir
    Path dir;

    private static byte[] digest(int value) {
        byte[] d = new byte[32];
        d[0] = (byte) value;
        return d;
    }

    @Test
    void onlyWrongOrMissingPiecesAreCopied() throws Exception {
        try (PieceStore store = PieceStore.create(dir.resolve("object.bin"), new PieceLayout(3000, 1000))) {
            store.keepDigests();
            store.write(0, ByteBuffer.wrap(new byte[2000]));
            store.completePiece(0, 0, digest(1)); // right
            store.completePiece(1, 0, digest(9)); // wrong: S3 says 2
            List<Integer> copied = new ArrayList<>();
            Disputes.Reread s3 = new Disputes.Reread() {
                @Override
                public byte[] digest(int piece) {
                    return CheckedCopyTest.digest(piece + 1);
                }

                @Override
                public boolean copyInto(PieceStore into, int piece) {
                    copied.add(piece);
                    return !into.hasPiece(piece);
                }

                @Override
                public void close() {
                }
            };
            BitSet all = new BitSet();
            all.set(0, 3);

            CheckedCopy c = CheckedCopy.copy(s3, all, store);

            assertThat(copied).containsExactly(1, 2);
            assertThat(c.pieces()).containsExactly(0, 1, 2);
            assertThat(c.truth()[1]).isEqualTo(digest(2));
            assertThat(c.replaced()).containsExactly(false, true, false);
            assertThat(c.added()).containsExactly(false, false, true);
        }
    }
}
