package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Small chunks gathered into the pool's buffer and written at their place; large ones written as they come. */
class WriteGathererTest {

    @TempDir
    Path dir;
    private PieceStore store;
    private final BufferPool pool = new BufferPool(64, 1);

    @BeforeEach
    void open() throws IOException {
        store = PieceStore.create(dir.resolve("o"), new PieceLayout(1000, 100));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static ByteBuffer filled(int length, int value) {
        byte[] b = new byte[length];
        Arrays.fill(b, (byte) value);
        return ByteBuffer.wrap(b);
    }

    private byte[] onDisk(int from, int length) throws IOException {
        return Arrays.copyOfRange(Files.readAllBytes(store.tempFile()), from, from + length);
    }

    @Test
    void smallChunksWaitInTheBufferUntilItFillsOrIsFlushed() throws IOException {
        WriteGatherer w = new WriteGatherer(store, pool, 100);
        w.add(filled(40, 1));
        assertThat(onDisk(100, 40)).containsOnly(0);
        w.add(filled(40, 2)); // fills the 64-byte buffer: its first 64 bytes go out
        assertThat(onDisk(100, 64)).isEqualTo(concat(filled(40, 1), filled(24, 2)));
        assertThat(onDisk(164, 16)).containsOnly(0);
        w.flush();
        assertThat(onDisk(164, 16)).containsOnly(2);
        w.release();
    }

    @Test
    void aLargeChunkGoesStraightToItsPlace() throws IOException {
        WriteGatherer w = new WriteGatherer(store, pool, 0);
        w.add(filled(200, 3));
        assertThat(onDisk(0, 200)).containsOnly(3);
        // After a small one is gathered, a large one fills the buffer first, then the rest follows in order.
        w.add(filled(10, 4));
        w.add(filled(200, 5));
        w.flush();
        assertThat(onDisk(200, 10)).containsOnly(4);
        assertThat(onDisk(210, 200)).containsOnly(5);
    }

    @Test
    void aRestartDropsWhatWasGatheredAndReleaseGivesTheBufferBack() throws IOException {
        WriteGatherer w = new WriteGatherer(store, pool, 0);
        w.add(filled(10, 6));
        w.restart(0);
        w.add(filled(5, 7));
        w.flush();
        assertThat(onDisk(0, 10)).isEqualTo(concat(filled(5, 7), filled(5, 0)));
        w.release();
        ByteBuffer back = pool.acquire();
        assertThat(back.position()).isZero();
        assertThat(pool.acquire()).isNotSameAs(back);
    }

    private static byte[] concat(ByteBuffer a, ByteBuffer b) {
        ByteBuffer out = ByteBuffer.allocate(a.remaining() + b.remaining());
        out.put(a.duplicate()).put(b.duplicate());
        return out.array();
    }
}
