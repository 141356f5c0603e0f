package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal's file read back as written: the header, stored and forgotten pieces, and where a torn write ends it. */
class JournalFormatTest {

    private static final JournalFormat.Identity ID =
            new JournalFormat.Identity("bucket", "key", "\"etag\"", "v1", 10_000, 1000);

    @TempDir
    Path dir;

    private FileChannel open(Path file) throws IOException {
        return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    private static void append(FileChannel ch, ByteBuffer records) throws IOException {
        records.flip();
        JournalFormat.writeFully(ch, records, ch.size());
    }

    @Test
    void storedAndForgottenPiecesAreReadBackInOrder() throws IOException {
        byte[] sha = new byte[32];
        Arrays.fill(sha, (byte) 7);
        try (FileChannel ch = open(dir.resolve("j"))) {
            JournalFormat.writeHeader(ch, ID);
            ByteBuffer buf = ByteBuffer.allocate(3 * JournalFormat.RECORD);
            JournalFormat.stored(buf, 3, 33, sha);
            JournalFormat.stored(buf, 5, 55, null);
            JournalFormat.stored(buf, 9, 99, null);
            append(ch, buf);
            JournalFormat.appendForgotten(ch, List.of(9));

            JournalFormat.Contents c = JournalFormat.read(ch);
            assertThat(c.identity()).isEqualTo(ID);
            assertThat(c.pieces()).containsOnlyKeys(3, 5);
            assertThat(c.pieces().get(3).crc32c()).isEqualTo(33);
            assertThat(c.pieces().get(3).sha256()).isEqualTo(sha);
            assertThat(c.pieces().get(5).sha256()).isNull();
            assertThat(c.validLength()).isEqualTo(ch.size());
        }
    }

    @Test
    void aTornOrDamagedRecordEndsTheJournal() throws IOException {
        try (FileChannel ch = open(dir.resolve("j"))) {
            JournalFormat.writeHeader(ch, ID);
            long header = ch.size();
            ByteBuffer buf = ByteBuffer.allocate(2 * JournalFormat.RECORD);
            JournalFormat.stored(buf, 1, 11, null);
            JournalFormat.stored(buf, 2, 22, null);
            buf.put(JournalFormat.RECORD + 5, (byte) 0x5a); // a bit of the second record's CRC32C'd bytes flipped
            append(ch, buf);
            ch.write(ByteBuffer.wrap(new byte[JournalFormat.RECORD - 1]), ch.size()); // and a half-written one

            JournalFormat.Contents c = JournalFormat.read(ch);
            assertThat(c.pieces()).containsOnlyKeys(1);
            assertThat(c.validLength()).isEqualTo(header + JournalFormat.RECORD);
        }
    }

    @Test
    void aPieceOutsideTheLayoutEndsTheJournal() throws IOException {
        try (FileChannel ch = open(dir.resolve("j"))) {
            JournalFormat.writeHeader(ch, ID);
            ByteBuffer buf = ByteBuffer.allocate(2 * JournalFormat.RECORD);
            JournalFormat.stored(buf, 10, 0, null); // 10 pieces: 0-9
            JournalFormat.stored(buf, 0, 0, null);
            append(ch, buf);
            assertThat(JournalFormat.read(ch).pieces()).isEmpty();
        }
    }

    @Test
    void anythingWithoutOurHeaderIsNoJournal() throws IOException {
        Path empty = Files.createFile(dir.resolve("empty"));
        Path other = Files.write(dir.resolve("other"), "not a journal at all, just text".getBytes());
        try (FileChannel a = open(empty); FileChannel b = open(other)) {
            assertThat(JournalFormat.read(a)).isNull();
            assertThat(JournalFormat.read(b)).isNull();
        }
        try (FileChannel ch = open(dir.resolve("j"))) {
            JournalFormat.writeHeader(ch, ID);
            ch.write(ByteBuffer.wrap(new byte[] {1}), JournalFormat.MAGIC.length + 6); // inside the identity
            assertThat(JournalFormat.read(ch)).isNull();
        }
    }

    @Test
    void theIdentityHashNamesTheObjectVersionAndLayout() {
        assertThat(ID.hash()).hasSize(16).isEqualTo(ID.hash());
        assertThat(new JournalFormat.Identity("bucket", "key", "\"etag\"", "v2", 10_000, 1000).hash())
                .isNotEqualTo(ID.hash());
        assertThat(ID.object()).isEqualTo("s3://bucket/key");
    }
}
