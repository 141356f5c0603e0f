package io.s3broadcast.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TempFileTest {

    @TempDir
    Path dir;

    @Test
    void createdUnderARandomNameBesideTheDestinationAndSized() throws Exception {
        Path dest = dir.resolve("object.bin");
        TempFile one = TempFile.create(dest, 1000);
        TempFile two = TempFile.create(dest, 0);
        try {
            assertThat(one.destination()).isEqualTo(dest.toAbsolutePath());
            assertThat(one.path()).hasParent(dir);
            assertThat(one.path().getFileName().toString()).startsWith(".object.bin.").endsWith(PieceStore.TEMP_SUFFIX);
            assertThat(two.path()).isNotEqualTo(one.path());
            assertThat(Files.size(one.path())).isEqualTo(1000);
            assertThat(Files.size(two.path())).isZero();
            assertThat(dest).doesNotExist();
        } finally {
            one.abort();
            two.abort();
        }
    }

    @Test
    void openedKeepingItsBytesCutOrGrownToTheSize() throws Exception {
        Path dest = dir.resolve("object.bin");
        Path longer = dir.resolve(".object.bin.long" + PieceStore.TEMP_SUFFIX);
        Path shorter = dir.resolve(".object.bin.short" + PieceStore.TEMP_SUFFIX);
        Files.write(longer, new byte[] {1, 2, 3, 4, 5, 6});
        Files.write(shorter, new byte[] {7, 8});
        TempFile cut = TempFile.open(dest, longer, 4);
        TempFile grown = TempFile.open(dest, shorter, 4);
        TempFile fresh = TempFile.open(dest, dir.resolve(".object.bin.new" + PieceStore.TEMP_SUFFIX), 3);
        try {
            assertThat(Files.readAllBytes(longer)).containsExactly(1, 2, 3, 4);
            assertThat(Files.readAllBytes(shorter)).containsExactly(7, 8, 0, 0);
            assertThat(Files.size(fresh.path())).isEqualTo(3);
        } finally {
            cut.abort();
            grown.abort();
            fresh.abort();
        }
    }

    @Test
    void aFileElsewhereIsRefused() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        assertThatThrownBy(() -> TempFile.open(dir.resolve("object.bin"), sub.resolve("part"), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the final rename would not be atomic");
        assertThat(sub.resolve("part")).doesNotExist();
    }

    @Test
    void commitRenamesOverTheDestinationAndKeepsTheChannelOpen() throws Exception {
        Path dest = dir.resolve("object.bin");
        Files.write(dest, new byte[] {1, 2, 3, 4, 5});
        TempFile file = TempFile.create(dest, 2);
        file.channel().write(ByteBuffer.wrap(new byte[] {9, 8}), 0);

        assertThat(file.commit()).isEqualTo(dest.toAbsolutePath());

        assertThat(file.isCommitted()).isTrue();
        assertThat(Files.readAllBytes(dest)).containsExactly(9, 8);
        assertThat(file.path()).doesNotExist();
        ByteBuffer read = ByteBuffer.allocate(2);
        file.channel().read(read, 0);
        assertThat(read.array()).containsExactly(9, 8);
        assertThatThrownBy(file::commit).isInstanceOf(IllegalStateException.class).hasMessageEndingWith("already committed");

        file.abort();
        assertThat(file.isClosed()).isTrue();
        assertThat(file.channel().isOpen()).isFalse();
        assertThat(Files.readAllBytes(dest)).containsExactly(9, 8);
    }

    @Test
    void abortRemovesTheFileOnceAndLeavesNoCommitBehind() throws Exception {
        Path dest = dir.resolve("object.bin");
        TempFile file = TempFile.create(dest, 10);

        file.abort();
        file.abort();

        assertThat(file.isClosed()).isTrue();
        assertThat(file.isCommitted()).isFalse();
        assertThatThrownBy(file::commit).isInstanceOf(IllegalStateException.class).hasMessageEndingWith("already closed");
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aKeptFileStaysForALaterFetch() throws Exception {
        Path dest = dir.resolve("object.bin");
        TempFile file = TempFile.create(dest, 4);
        file.channel().write(ByteBuffer.wrap(new byte[] {5, 6, 7, 8}), 0);

        file.keep();
        file.abort();

        assertThat(Files.readAllBytes(file.path())).containsExactly(5, 6, 7, 8);
        assertThat(dest).doesNotExist();
    }
}
