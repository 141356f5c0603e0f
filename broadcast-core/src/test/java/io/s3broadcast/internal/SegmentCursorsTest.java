package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.PieceLayout;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The bookkeeping alone, with no reader and no executor: the test plays the hasher, taking each read the cursors
 * offer and feeding the bytes from an array.
 */
class SegmentCursorsTest {

    private static final int PIECE = 64 << 10;

    private final byte[] data = random(10 * PIECE + 77);
    private final PieceLayout layout = new PieceLayout(data.length, PIECE);

    @Test
    void aSegmentIsOfferedOnePieceAtATimeAndOnlyAsFarAsThePiecesPresentReach() {
        IncrementalDigest sha = digest(ObjectChecksum.fullObject("SHA256", base64(hash("SHA256", 0, data.length))));
        SegmentCursors cursors = new SegmentCursors(layout, List.of(sha), "s3://b/k");
        assertThat(cursors.pieceCompleted(1, crc32c(1))).isTrue();
        assertThat(cursors.anyReady()).as("waiting for piece 0").isFalse();
        assertThat(cursors.nextRead()).isNull();

        cursors.pieceCompleted(0, crc32c(0));
        SegmentCursors.Cursor c = cursors.nextRead();
        assertThat(c.readingFrom()).isZero();
        assertThat(c.readingTo()).isEqualTo(PIECE);
        assertThat(cursors.nextRead()).as("the one segment is being read").isNull();
        cursors.pieceCompleted(2, crc32c(2));
        assertThat(cursors.anyReady()).as("a segment being read is not queued again").isFalse();
        hash(cursors, c);
        assertThat(cursors.bytesLeft()).isEqualTo(data.length - PIECE);

        SegmentCursors.Cursor next = cursors.nextRead();
        assertThat(next).isSameAs(c);
        assertThat(next.readingFrom()).isEqualTo(PIECE);
        assertThat(next.readingTo()).isEqualTo(2L * PIECE);
        hash(cursors, next);
        hash(cursors, cursors.nextRead());
        assertThat(cursors.nextRead()).as("waiting for piece 3").isNull();
        assertThat(cursors.bytesLeft()).isEqualTo(data.length - 3L * PIECE);

        for (int p = 3; p < layout.pieceCount(); p++) {
            cursors.pieceCompleted(p, crc32c(p));
        }
        hashAll(cursors);
        assertThat(cursors.isDone()).isTrue();
        assertThat(sha.matches()).isTrue();
    }

    @Test
    void aSegmentSeveralDigestsShareIsOneCursorFedToEach() {
        IncrementalDigest md5 = digest(ObjectChecksum.fullObject("MD5", hex(hash("MD5", 0, data.length))));
        IncrementalDigest sha = digest(ObjectChecksum.fullObject("SHA1", base64(hash("SHA1", 0, data.length))));
        SegmentCursors cursors = new SegmentCursors(layout, List.of(md5, sha), "s3://b/k");
        assertThat(cursors.bytesLeft()).as("counted once").isEqualTo(data.length);
        for (int p = 0; p < layout.pieceCount(); p++) {
            cursors.pieceCompleted(p, crc32c(p));
        }
        assertThat(hashAll(cursors)).as("read once").isEqualTo(data.length);
        assertThat(cursors.isDone()).isTrue();
        assertThat(md5.matches()).isTrue();
        assertThat(sha.matches()).isTrue();
    }

    @Test
    void aForgottenPieceSendsOnlyTheSegmentsThatHashedItBackToTheirStart() {
        List<Long> parts = List.of(4L * PIECE, 4L * PIECE, (long) data.length - 8L * PIECE);
        IncrementalDigest parted = digest(new ObjectChecksum("SHA256", composite("SHA256", parts), false, parts));
        SegmentCursors cursors = new SegmentCursors(layout, List.of(parted), "s3://b/k");
        for (int p = 0; p < layout.pieceCount(); p++) {
            cursors.pieceCompleted(p, crc32c(p));
        }
        hashAll(cursors);
        assertThat(cursors.isDone()).isTrue();

        cursors.pieceForgotten(5);
        assertThat(cursors.isDone()).isFalse();
        assertThat(cursors.bytesLeft()).as("the second part").isEqualTo(4L * PIECE);
        SegmentCursors.Cursor c = cursors.nextRead();
        assertThat(c.readingFrom()).as("piece 4, present, comes first").isEqualTo(4L * PIECE);
        hash(cursors, c);
        assertThat(cursors.nextRead()).as("waiting for piece 5").isNull();
        assertThat(cursors.pieceCompleted(5, crc32c(5))).isTrue();
        assertThat(hashAll(cursors)).isEqualTo(3L * PIECE);
        assertThat(cursors.isDone()).isTrue();
        assertThat(parted.matches()).isTrue();
    }

    @Test
    void aReadThatRacedAForgottenPieceCountsForNothingAndItsSegmentStartsOver() {
        IncrementalDigest sha = digest(ObjectChecksum.fullObject("SHA256", base64(hash("SHA256", 0, data.length))));
        SegmentCursors cursors = new SegmentCursors(layout, List.of(sha), "s3://b/k");
        for (int p = 0; p < layout.pieceCount(); p++) {
            cursors.pieceCompleted(p, crc32c(p));
        }
        hash(cursors, cursors.nextRead());
        SegmentCursors.Cursor c = cursors.nextRead();
        c.feed(ByteBuffer.wrap(new byte[PIECE])); // what it read of piece 1 was being replaced
        cursors.pieceForgotten(1);
        assertThat(cursors.readEnded(c)).isFalse();
        assertThat(cursors.bytesLeft()).isEqualTo(data.length);
        SegmentCursors.Cursor again = cursors.nextRead();
        assertThat(again.readingFrom()).isZero();
        hash(cursors, again);
        assertThat(cursors.nextRead()).as("waiting for piece 1").isNull();

        cursors.pieceCompleted(1, crc32c(1));
        SegmentCursors.Cursor one = cursors.nextRead();
        long to = one.readingTo();
        one.feed(ByteBuffer.wrap(data, PIECE, PIECE));
        cursors.pieceForgotten(5);
        assertThat(cursors.readEnded(one)).as("piece 5 is not among the bytes read").isTrue();
        cursors.hashedTo(one, to);
        assertThat(hashAll(cursors)).as("pieces 2 to 4").isEqualTo(3L * PIECE);
        cursors.pieceCompleted(5, crc32c(5));
        hashAll(cursors);
        assertThat(cursors.isDone()).isTrue();
        assertThat(sha.matches()).isTrue();
    }

    @Test
    void aFullObjectCrc32cNeedsNoReadsAndIsDoneWhenEveryPieceIsIn() {
        IncrementalDigest crc = digest(ObjectChecksum.fullObject("CRC32C", base64(hash("CRC32C", 0, data.length))));
        SegmentCursors cursors = new SegmentCursors(layout, List.of(crc), "s3://b/k");
        assertThat(cursors.bytesLeft()).isZero();
        for (int p = layout.pieceCount() - 1; p >= 0; p--) {
            assertThat(cursors.isDone()).isFalse();
            cursors.pieceCompleted(p, crc32c(p));
            assertThat(cursors.anyReady()).isFalse();
        }
        assertThat(cursors.isDone()).isTrue();
        assertThat(cursors.pieceCompleted(4, 0)).as("a piece already in changes nothing").isFalse();
        assertThat(crc.matches()).isTrue();

        cursors.pieceForgotten(4);
        assertThat(cursors.isDone()).isFalse();
        cursors.pieceCompleted(4, crc32c(4));
        assertThat(cursors.isDone()).isTrue();
    }

    /** Reads what the cursors offer, as the hasher does, until nothing is ready; returns the bytes read. */
    private long hashAll(SegmentCursors cursors) {
        long read = 0;
        SegmentCursors.Cursor c;
        while ((c = cursors.nextRead()) != null) {
            read += c.readingTo() - c.readingFrom();
            hash(cursors, c);
        }
        return read;
    }

    private void hash(SegmentCursors cursors, SegmentCursors.Cursor c) {
        long to = c.readingTo();
        c.feed(ByteBuffer.wrap(data, (int) c.readingFrom(), (int) (to - c.readingFrom())));
        assertThat(cursors.readEnded(c)).isTrue();
        cursors.hashedTo(c, to);
    }

    private IncrementalDigest digest(ObjectChecksum c) {
        return IncrementalDigest.of(c, layout);
    }

    private byte[] hash(String alg, int from, int length) {
        return IncrementalDigestTest.digest(alg, data, from, length);
    }

    private String composite(String alg, List<Long> parts) {
        return IncrementalDigestTest.composite(alg, data, parts, false);
    }

    private int crc32c(int piece) {
        CRC32C c = new CRC32C();
        c.update(data, (int) layout.offset(piece), layout.length(piece));
        return (int) c.getValue();
    }

    private static String base64(byte[] b) {
        return IncrementalDigestTest.base64(b);
    }

    private static String hex(byte[] b) {
        return IncrementalDigestTest.hex(b);
    }

    private static byte[] random(int n) {
        return IncrementalDigestTest.random(n);
    }
}
