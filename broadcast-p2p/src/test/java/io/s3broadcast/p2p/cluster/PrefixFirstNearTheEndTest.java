package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.internal.cluster.PieceSelector;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PrefixFirstNearTheEndTest {

    static final int PIECES = 64;

    final PieceSelector rarest = PieceSelector.randomizedRarest(new Random(1));
    int missing = PIECES;

    static ObjectInfo object(Optional<ObjectChecksum> checksum, Optional<ObjectChecksum> eTagDigest) {
        return new ObjectInfo("b", "k", PIECES, "\"e\"", checksum, Optional.empty(), eTagDigest);
    }

    static BitSet candidates() {
        BitSet c = new BitSet();
        c.set(10);
        c.set(3);
        c.set(40);
        c.set(7);
        return c;
    }

    @Test
    void aSingleDigestOverTheWholeObjectTakesTheLastPiecesInFileOrder() {
        PieceSelector s = PrefixFirstNearTheEnd.of(rarest,
                object(Optional.empty(), Optional.of(ObjectChecksum.fullObject("MD5", "x"))), PIECES, () -> missing);
        // Rarest first while many are missing: piece 40 is the only one nobody else has, so it comes first.
        assertThat(s.select(candidates(), p -> p == 40 ? 1 : 3, 4)[0]).isEqualTo(40);
        // At most an eighth missing: file order, rarity aside.
        missing = PIECES / 8;
        assertThat(s.select(candidates(), p -> p == 40 ? 1 : 3, 4)).containsExactly(3, 7, 10, 40);
        assertThat(s.select(candidates(), p -> 1, 2)).containsExactly(3, 7);
    }

    @Test
    void digestsPerPartOrPerPieceKeepTheUsualOrder() {
        ObjectChecksum composite = new ObjectChecksum("MD5", "x", false, List.of(32L, 32L));
        assertThat(PrefixFirstNearTheEnd.of(rarest, object(Optional.empty(), Optional.of(composite)), PIECES, () -> 0))
                .isSameAs(rarest);
        assertThat(PrefixFirstNearTheEnd.of(rarest, object(Optional.of(ObjectChecksum.fullObject("CRC64NVME", "x")),
                Optional.empty()), PIECES, () -> 0)).isSameAs(rarest);
        assertThat(PrefixFirstNearTheEnd.of(rarest, object(Optional.empty(), Optional.empty()), PIECES, () -> 0))
                .isSameAs(rarest);
        assertThat(PrefixFirstNearTheEnd.sequentialDigest(object(Optional.of(ObjectChecksum.fullObject("SHA256", "x")),
                Optional.empty()))).isTrue();
    }
}
