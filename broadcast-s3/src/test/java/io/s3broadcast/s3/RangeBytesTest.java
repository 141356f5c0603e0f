package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A range's bytes put in their place: pieces recorded with their CRC32C, parts left to others, the cut. */
class RangeBytesTest {

    private static final int PIECE = 100;
    private static final byte[] OBJECT = new byte[1000];

    static {
        new Random(7).nextBytes(OBJECT);
    }

    @TempDir
    Path dir;
    private PieceStore store;
    private final List<Integer> progress = new ArrayList<>();

    @BeforeEach
    void open() throws IOException {
        store = PieceStore.create(dir.resolve("o"), new PieceLayout(OBJECT.length, PIECE));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private RangeBytes bytes(long start, long end, int bufferSize) {
        return new RangeBytes(store, new BufferPool(bufferSize, 1), start, end, progress::add);
    }

    private static ByteBuffer chunk(long from, int length) {
        return ByteBuffer.wrap(OBJECT, (int) from, length).slice();
    }

    private static int crc(int piece) {
        CRC32C c = new CRC32C();
        c.update(OBJECT, piece * PIECE, PIECE);
        return (int) c.getValue();
    }

    private byte[] onDisk(long from, int length) throws IOException {
        byte[] b = Files.readAllBytes(store.tempFile());
        byte[] out = new byte[length];
        System.arraycopy(b, (int) from, out, 0, length);
        return out;
    }

    @Test
    void eachPieceIsRecordedWithItsCrcWhenItsLastByteIsWritten() throws IOException {
        RangeBytes r = bytes(200, 500, 64);
        // Chunks that straddle pieces, smaller and larger than the gathering buffer.
        RangeBytes.Taken first = r.take(chunk(200, 130));
        assertThat(first.stored()).containsExactly(2);
        assertThat(store.crc32c(2)).isEqualTo(crc(2));
        assertThat(r.take(chunk(330, 20)).stored()).isEmpty();
        assertThat(r.take(chunk(350, 150)).stored()).containsExactly(3, 4);
        assertThat(r.complete()).isTrue();
        assertThat(r.taken()).isEqualTo(300);
        assertThat(progress).containsExactly(2, 3, 4);
        assertThat(onDisk(200, 300)).isEqualTo(slice(200, 300));
        assertThat(store.crc32c(4)).isEqualTo(crc(4));
        r.release();
    }

    @Test
    void aPieceTheRangeStartsWithinIsAPartWrittenButNotRecorded() throws IOException {
        RangeBytes r = bytes(250, 400, 64);
        RangeBytes.Taken t = r.take(chunk(250, 150));
        assertThat(t.parts()).containsExactly(2);
        assertThat(t.stored()).containsExactly(3);
        assertThat(store.hasPiece(2)).isFalse();
        assertThat(onDisk(250, 150)).isEqualTo(slice(250, 150));
    }

    @Test
    void aCutStopsTheBytesAndDropsWhatComesAfterIt() throws IOException {
        RangeBytes r = bytes(0, 500, 64);
        r.take(chunk(0, 120));
        assertThat(r.cut(120)).isFalse(); // taken already
        assertThat(r.cut(0)).isFalse(); // not after the first byte
        assertThat(r.cut(250)).isTrue();
        assertThat(r.cut(300)).isFalse(); // not before the current stop
        RangeBytes.Taken t = r.take(chunk(120, 200));
        assertThat(t.stored()).containsExactly(1);
        assertThat(t.parts()).containsExactly(2);
        assertThat(r.cutReached()).isTrue();
        assertThat(r.complete()).isFalse();
        assertThat(r.position()).isEqualTo(250);
        assertThat(store.hasPiece(2)).isFalse();
    }

    @Test
    void aRestartForgetsTheBytesTakenAndTheirHashes() throws IOException {
        RangeBytes r = bytes(0, 200, 64);
        r.take(ByteBuffer.wrap(new byte[50]));
        r.restart();
        assertThat(r.position()).isZero();
        assertThat(r.remaining()).isEqualTo(200);
        assertThat(r.take(chunk(0, 200)).stored()).containsExactly(0, 1);
        assertThat(store.crc32c(0)).isEqualTo(crc(0));
        assertThat(onDisk(0, 200)).isEqualTo(slice(0, 200));
    }

    @Test
    void aStoreThatKeepsDigestsGetsEachPiecesSha256() throws Exception {
        store.keepDigests();
        RangeBytes r = bytes(0, 100, 64);
        r.take(chunk(0, 100));
        byte[] expected = java.security.MessageDigest.getInstance("SHA-256").digest(slice(0, 100));
        assertThat(store.sha256(0)).isEqualTo(expected);
    }

    @Test
    void aChunkThatRecordsNothingAllocatesNothing() throws IOException {
        RangeBytes r = bytes(0, 200, 64);
        assertThat(r.take(chunk(0, 10))).isSameAs(RangeBytes.Taken.NOTHING);
    }

    private static byte[] slice(int from, int length) {
        byte[] out = new byte[length];
        System.arraycopy(OBJECT, from, out, 0, length);
        return out;
    }
}
