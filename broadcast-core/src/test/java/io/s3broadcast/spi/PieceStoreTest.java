package io.s3broadcast.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PieceStoreTest {

    @TempDir
    Path dir;

    @Test
    void nothingAtTheDestinationUntilCommit() throws Exception {
        Path dest = dir.resolve("object.bin");
        byte[] data = "hello, broadcast".getBytes();
        PieceLayout layout = new PieceLayout(data.length, 5);
        try (PieceStore store = PieceStore.create(dest, layout)) {
            assertThat(dest).doesNotExist();
            assertThat(store.tempFile()).exists().hasParent(dir);
            for (int p = layout.pieceCount() - 1; p >= 0; p--) {
                store.write(layout.offset(p), ByteBuffer.wrap(data, (int) layout.offset(p), layout.length(p)));
                CRC32C crc = new CRC32C();
                crc.update(data, (int) layout.offset(p), layout.length(p));
                assertThat(store.completePiece(p, (int) crc.getValue())).isTrue();
                assertThat(store.crc32cOnDisk(p)).isEqualTo(store.crc32c(p));
            }
            assertThat(store.completePiece(0, 0)).isFalse();
            assertThat(dest).doesNotExist();
            assertThat(store.commit()).isEqualTo(dest.toAbsolutePath());
        }
        assertThat(Files.readAllBytes(dest)).isEqualTo(data);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(dest);
        }
    }

    @Test
    void abortLeavesNothingBehind() throws Exception {
        Path dest = dir.resolve("x");
        PieceStore store = PieceStore.create(dest, new PieceLayout(100, 10));
        store.write(0, ByteBuffer.wrap(new byte[10]));
        store.abort();
        store.abort();
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void commitNeedsEveryPiece() throws Exception {
        try (PieceStore store = PieceStore.create(dir.resolve("y"), new PieceLayout(20, 10))) {
            store.completePiece(0, 0);
            assertThatThrownBy(store::commit).isInstanceOf(IllegalStateException.class).hasMessageContaining("1/2");
        }
    }

    @Test
    void commitReplacesAnOlderFile() throws Exception {
        Path dest = dir.resolve("z");
        Files.write(dest, new byte[] {1, 2, 3, 4, 5, 6, 7});
        try (PieceStore store = PieceStore.create(dest, new PieceLayout(2, 10))) {
            store.write(0, ByteBuffer.wrap(new byte[] {9, 9}));
            store.completePiece(0, 0);
            store.commit();
        }
        assertThat(Files.readAllBytes(dest)).containsExactly(9, 9);
    }

    @Test
    void writesOutsideTheObjectAreRejected() throws Exception {
        try (PieceStore store = PieceStore.create(dir.resolve("w"), new PieceLayout(10, 4))) {
            assertThatThrownBy(() -> store.write(8, ByteBuffer.allocate(3))).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }
}
