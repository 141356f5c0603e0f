package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Queue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the journal writes its batches: a delay after the first queued record, or at once when the pieces queued
 * since the last batch reach its byte count. Both executors are queues this test runs by hand.
 */
class PieceJournalTest {

    private static final int PIECE = 1000;
    private static final PieceLayout LAYOUT = new PieceLayout(10 * PIECE, PIECE);

    @TempDir
    Path dir;

    private final Queue<Runnable> now = new ArrayDeque<>();
    private final Queue<Runnable> later = new ArrayDeque<>();
    private PieceStore store;
    private FileChannel channel;
    private PieceJournal journal;
    private long header;

    @BeforeEach
    void open() throws IOException {
        store = PieceStore.create(dir.resolve("object.bin"), LAYOUT);
        channel = FileChannel.open(dir.resolve("journal"), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        JournalFormat.writeHeader(channel,
                new JournalFormat.Identity("bucket", "key", "etag", "", LAYOUT.objectSize(), PIECE));
        header = channel.size();
        journal = new PieceJournal(channel, store, new Bitfield(LAYOUT.pieceCount()), now::add, later::add,
                3L * PIECE);
        store.observe(journal);
    }

    @AfterEach
    void close() throws IOException {
        journal.close();
        store.close();
        channel.close();
    }

    private void complete(int piece) throws IOException {
        store.write(LAYOUT.offset(piece), ByteBuffer.allocate(PIECE));
        store.completePiece(piece, 0);
    }

    private long records() throws IOException {
        return (channel.size() - header) / JournalFormat.RECORD;
    }

    @Test
    void piecesBelowTheByteCountWaitForTheDelayedBatch() throws IOException {
        complete(0);
        complete(1);

        assertThat(now).isEmpty();
        assertThat(later).hasSize(1);
        later.poll().run();
        assertThat(records()).isEqualTo(2);
    }

    @Test
    void theByteCountSendsABatchAtOnceAndStartsCountingAgain() throws IOException {
        complete(0);
        complete(1);
        complete(2);

        assertThat(now).hasSize(1);
        now.poll().run();
        assertThat(records()).isEqualTo(3);

        complete(3);
        complete(4);
        assertThat(now).isEmpty(); // 2 pieces since the batch: below the count again
        complete(5);
        assertThat(now).hasSize(1);
        now.poll().run();
        assertThat(records()).isEqualTo(6);
        // The delayed batch scheduled meanwhile finds nothing left, and a later piece schedules the next one.
        later.poll().run();
        assertThat(records()).isEqualTo(6);
        complete(6);
        assertThat(later).hasSize(1);
    }

    @Test
    void aBatchAlreadyGoingAtOnceIsNotAskedForTwice() throws IOException {
        for (int p = 0; p < 7; p++) {
            complete(p);
        }

        assertThat(now).hasSize(1);
        now.poll().run();
        assertThat(records()).isEqualTo(7);
    }
}
