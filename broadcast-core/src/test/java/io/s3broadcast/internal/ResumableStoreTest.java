package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal and the resumable temporary file: what survives an interrupted fetch, and what does not. */
class ResumableStoreTest {

    private static final int PIECE = 1000;
    private static final int SIZE = 10 * PIECE + 123;

    @TempDir
    Path dir;

    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final byte[] data = new byte[SIZE];
    private final PieceLayout layout = new PieceLayout(SIZE, PIECE);

    ResumableStoreTest() {
        new Random(7).nextBytes(data);
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private static ObjectInfo object(String eTag) {
        return new ObjectInfo("bucket", "data/object.bin", SIZE, eTag, Optional.empty());
    }

    private Path dest() {
        return dir.resolve("object.bin");
    }

    private ResumableStore open(String eTag, boolean keepDigests) throws IOException {
        return ResumableStore.open(dest(), object(eTag), layout, keepDigests, executor);
    }

    private void store(PieceStore store, int piece) throws IOException {
        int off = (int) layout.offset(piece);
        int len = layout.length(piece);
        store.write(off, ByteBuffer.wrap(data, off, len));
        CRC32C crc = new CRC32C();
        crc.update(data, off, len);
        store.completePiece(piece, (int) crc.getValue(),
                store.keepsDigests() ? Sha256.of(ByteBuffer.wrap(data, off, len)) : null);
    }

    /** A fetch that stores {@code pieces} and then fails for a reason a later fetch can get past. */
    private void interrupted(String eTag, boolean keepDigests, int... pieces) throws IOException {
        ResumableStore r = open(eTag, keepDigests);
        for (int p : pieces) {
            store(r.store(), p);
        }
        r.stopped(new BroadcastException("S3 unreachable"));
        r.store().close();
    }

    private List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void resumesFromTheJournaledPiecesWithTheirDigests() throws Exception {
        interrupted("\"e1\"", true, 0, 3, 4, 10);
        assertThat(files()).hasSize(2).allMatch(n -> n.matches("\\.object\\.bin\\.[0-9a-f]{16}\\.s3b-(part|journal)"));
        ResumableStore r = open("\"e1\"", true);
        PieceStore s = r.store();
        assertThat(r.resumedPieces()).isEqualTo(4);
        for (int p : new int[] {0, 3, 4, 10}) {
            assertThat(s.hasPiece(p)).isTrue();
            assertThat(s.crc32cOnDisk(p)).isEqualTo(s.crc32c(p));
            assertThat(s.sha256(p)).isEqualTo(Sha256.of(ByteBuffer.wrap(data, (int) layout.offset(p), layout.length(p))));
        }
        assertThat(s.presentCount()).isEqualTo(4);
        for (int p = 0; p < layout.pieceCount(); p++) {
            if (!s.hasPiece(p)) {
                store(s, p);
            }
        }
        s.commit();
        r.committed();
        s.close();
        assertThat(Files.readAllBytes(dest())).isEqualTo(data);
        assertThat(files()).containsExactly("object.bin");
    }

    @Test
    void aTornLastRecordIsCutOffAndAppendingGoesOn() throws Exception {
        interrupted("\"e1\"", false, 1, 2);
        Path journal = onlyFile(".s3b-journal");
        Files.write(journal, new byte[JournalFormat.RECORD - 7], StandardOpenOption.APPEND); // a record half written
        ResumableStore r = open("\"e1\"", false);
        assertThat(r.resumedPieces()).isEqualTo(2);
        store(r.store(), 5);
        r.stopped(new BroadcastException("S3 unreachable"));
        r.store().close();

        ResumableStore again = open("\"e1\"", false);
        assertThat(again.resumedPieces()).isEqualTo(3);
        assertThat(again.store().hasPiece(5)).isTrue();
        again.stopped(new CancellationException());
        again.store().close();
        assertThat(files()).isEmpty();
    }

    @Test
    void aPieceWhoseBytesDoNotMatchItsDigestIsDroppedAndFetchedAgain() throws Exception {
        interrupted("\"e1\"", false, 0, 1, 2);
        try (var ch = java.nio.channels.FileChannel.open(onlyFile(".s3b-part"), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~data[PIECE + 17]}), PIECE + 17);
        }
        ResumableStore r = open("\"e1\"", false);
        assertThat(r.resumedPieces()).isEqualTo(2);
        assertThat(r.store().hasPiece(1)).isFalse();
        r.stopped(new BroadcastException("S3 unreachable"));
        r.store().close();
        // The drop is journaled: the piece stays dropped without being read again.
        try (var ch = java.nio.channels.FileChannel.open(onlyFile(".s3b-journal"))) {
            assertThat(JournalFormat.read(ch).pieces()).containsOnlyKeys(0, 2);
        }
    }

    @Test
    void aJournalWithoutDigestsGivesAClusterStoreDigestsFromTheBytes() throws Exception {
        interrupted("\"e1\"", false, 6);
        ResumableStore r = open("\"e1\"", true);
        assertThat(r.store().sha256(6)).isEqualTo(Sha256.of(ByteBuffer.wrap(data, 6 * PIECE, PIECE)));
        r.stopped(new CancellationException());
        r.store().close();
    }

    @Test
    void anotherETagStartsOverAndRemovesTheOldFiles() throws Exception {
        interrupted("\"e1\"", false, 0, 1);
        List<String> old = files();
        ResumableStore r = open("\"e2\"", false);
        assertThat(r.resumedPieces()).isZero();
        assertThat(r.store().presentCount()).isZero();
        List<String> now = files();
        assertThat(now).hasSize(2).doesNotContainAnyElementsOf(old);
        r.stopped(new BroadcastException.ObjectChanged("changed", null));
        r.store().close();
        assertThat(files()).isEmpty();
    }

    @Test
    void aDamagedHeaderStartsOver() throws Exception {
        interrupted("\"e1\"", false, 0, 1);
        Path journal = onlyFile(".s3b-journal");
        byte[] bytes = Files.readAllBytes(journal);
        bytes[12] ^= 1;
        Files.write(journal, bytes);
        ResumableStore r = open("\"e1\"", false);
        assertThat(r.resumedPieces()).isZero();
        r.stopped(new CancellationException());
        r.store().close();
    }

    @Test
    void removesOnlyThisDestinationsLeftoverTemporaryFiles() throws Exception {
        List<String> others = List.of("object.bin", ".object.bin.s3broadcast", "other.bin.1234.s3b-part",
                ".object.bin2.1234abcd.s3b-part", ".object.bin.check.1234abcd.s3b-part", ".object.bin.1234abcd.s3b-partial",
                ".object.bin.XYZ.s3b-part");
        for (String n : others) {
            Files.writeString(dir.resolve(n), "keep");
        }
        Files.writeString(dir.resolve(".object.bin.3f2a9c0d11e4b5a6.s3b-part"), "old random name");
        Files.writeString(dir.resolve(".object.bin.00ff.s3b-journal"), "not even a journal");
        assertThat(PartFiles.bytesHeld(dest())).isEqualTo("old random name".length() + "not even a journal".length());
        ResumableStore r = open("\"e1\"", false);
        assertThat(files()).containsAll(others).hasSize(others.size() + 2)
                .doesNotContain(".object.bin.3f2a9c0d11e4b5a6.s3b-part", ".object.bin.00ff.s3b-journal");
        r.stopped(new CancellationException());
        r.store().close();
    }

    @Test
    void aKeptPartFileCountsAsThePiecesItsJournalListsNotItsSparseSize() throws Exception {
        interrupted("\"e1\"", false, 0, 3);
        assertThat(Files.size(onlyFile(".s3b-part"))).isEqualTo(SIZE);
        long journal = Files.size(onlyFile(".s3b-journal"));
        assertThat(PartFiles.bytesHeld(dest())).isEqualTo(2L * PIECE + journal);
        ResumableStore r = open("\"e1\"", false);
        r.stopped(new CancellationException());
        r.store().close();
        assertThat(PartFiles.bytesHeld(dest())).isZero();
    }

    @Test
    void aSecondFetchOfTheSameObjectMeanwhileGetsAFileOfItsOwn() throws Exception {
        ResumableStore first = open("\"e1\"", false);
        ResumableStore second = open("\"e1\"", false);
        assertThat(first.isResumable()).isTrue();
        assertThat(second.isResumable()).isFalse();
        assertThat(second.store().tempFile()).isNotEqualTo(first.store().tempFile());
        store(first.store(), 0);
        second.stopped(new BroadcastException("x"));
        second.store().close();
        first.stopped(new BroadcastException("x"));
        first.store().close();
        assertThat(files()).hasSize(2); // the first one's, kept; the second left nothing
        ResumableStore third = open("\"e1\"", false);
        assertThat(third.resumedPieces()).isEqualTo(1);
        third.stopped(new CancellationException());
        third.store().close();
    }

    @Test
    void aThirdFetchLeavesTheFileOfOneThatCouldNotHaveTheJournal() throws Exception {
        ResumableStore first = open("\"e1\"", false);
        ResumableStore second = open("\"e1\"", false);
        Path secondFile = second.store().tempFile();
        assertThat(secondFile.getFileName().toString()).matches("\\.object\\.bin\\.[0-9a-f]{16}-[0-9a-f]+\\.s3b-part");
        first.stopped(new BroadcastException("x"));
        first.store().close();
        ResumableStore third = open("\"e1\"", false); // has the journal now, and removes stale files
        assertThat(third.isResumable()).isTrue();
        assertThat(secondFile).exists();
        store(second.store(), 2);
        second.stopped(new BroadcastException("x"));
        second.store().close();
        assertThat(secondFile).doesNotExist();
        third.stopped(new CancellationException());
        third.store().close();
        assertThat(files()).isEmpty();
    }

    private Path onlyFile(String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> l = s.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
            assertThat(l).hasSize(1);
            return l.get(0);
        }
    }
}
