package io.s3broadcast.internal;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal beside a resumable temporary file: which pieces of it were stored, with their CRC32C and (when
 * the store keeps them) SHA-256, under the object's identity, in {@link JournalFormat}. Appended as pieces land,
 * so a process killed mid-run loses at most the records of the last second or so; a later fetch of the same
 * object re-checks the listed pieces and fetches only the rest ({@link ResumableStore}).
 *
 * <p>Ordering: a batch of records is written only after the temporary file's bytes are forced to disk, so a
 * record never names a piece whose bytes are not there even after a power cut. The journal itself is forced
 * only when it is closed: a record lost costs a fetch of that piece again, never a wrong byte, and every listed
 * piece is read back and checked against its CRC32C before it counts.
 *
 * <p>As a {@link PieceStore.PieceObserver} it only queues the piece (the store's lock is held); the records
 * are written on the executor, one batch at a time, holding what arrived meanwhile. A batch is written about a
 * second ({@link #FLUSH_DELAY_SECONDS}) after the first piece it holds arrived, or at once when the pieces queued
 * since the last batch reach {@link #FLUSH_BYTES}: a kill -9 loses at most about a second of pieces (fetched again,
 * never wrong), and the fetch's final fsync finds at most about that much still to write, however fast the pieces
 * came (a 64 MiB fetch that takes 0.2 s used to leave all of it to the final fsync). {@link #close} writes whatever
 * is queued.
 */
final class PieceJournal implements PieceStore.PieceObserver {

    private static final Logger LOG = LoggerFactory.getLogger(PieceJournal.class);

    /** How long a batch gathers records before it is written (each write forces the temporary file). */
    static final long FLUSH_DELAY_SECONDS = 1;
    /** Bytes of pieces queued since the last batch that make the next batch go at once, not a delay later. */
    static final long FLUSH_BYTES = 16L << 20;

    private final FileChannel journal;
    private final PieceStore store;
    private final Executor later;
    private final Executor now;
    private final long flushBytes;
    /** Bytes of the pieces queued since the last batch was taken. */
    private final AtomicLong queuedBytes = new AtomicLong();
    /** A batch is on its way to the executor because {@link #queuedBytes} reached {@link #FLUSH_BYTES}. */
    private final AtomicBoolean flushingNow = new AtomicBoolean();
    private final Bitfield recorded;
    private final ConcurrentLinkedQueue<Integer> queued = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /**
     * Held while records are written (which takes the store's lock for each piece). Never waited for by a
     * flush, which may run under the store's lock: a flush that finds it held tries again later.
     */
    private final ReentrantLock writing = new ReentrantLock();
    private long end;
    private volatile boolean closed;

    /**
     * Appends to {@code journal} (whose valid content ends at its current size) the pieces {@code store}
     * completes and forgets from now on; {@code recorded} are the pieces the journal lists already.
     */
    PieceJournal(FileChannel journal, PieceStore store, Bitfield recorded, Executor executor) throws IOException {
        // Never the caller's thread for the batch that goes at once, even with an executor that runs tasks where
        // they are given: pieces are queued under the store's lock.
        this(journal, store, recorded, CompletableFuture.delayedExecutor(0, TimeUnit.MILLISECONDS, executor),
                CompletableFuture.delayedExecutor(FLUSH_DELAY_SECONDS, TimeUnit.SECONDS, executor), FLUSH_BYTES);
    }

    /**
     * As above, with the executors of the batch that goes at once ({@code now}) and of the delayed batch
     * ({@code later}), and the bytes that make a batch go at once.
     */
    PieceJournal(FileChannel journal, PieceStore store, Bitfield recorded, Executor now, Executor later,
            long flushBytes) throws IOException {
        this.journal = journal;
        this.store = store;
        this.now = now;
        this.later = later;
        this.flushBytes = flushBytes;
        this.recorded = recorded.copy();
        this.end = journal.size();
    }

    @Override
    public void pieceCompleted(int piece, int crc32c) {
        // Under the store's lock, in order: the bitfield needs no lock of its own.
        if (recorded.set(piece)) {
            enqueue(piece);
            if (queuedBytes.addAndGet(store.layout().length(piece)) >= flushBytes
                    && flushingNow.compareAndSet(false, true)) {
                try {
                    now.execute(this::flushNow);
                } catch (RuntimeException e) {
                    flushingNow.set(false); // rejected (shutting down): the delayed batch or close() writes it
                }
            }
        }
    }

    @Override
    public void pieceForgotten(int piece) {
        if (recorded.clear(piece)) {
            enqueue(-piece - 1);
        }
    }

    private void enqueue(int entry) {
        queued.add(entry);
        if (scheduled.compareAndSet(false, true)) {
            try {
                later.execute(this::flush);
            } catch (RuntimeException e) {
                scheduled.set(false); // rejected (shutting down): close() writes what is queued
            }
        }
    }

    /**
     * Writes every queued record as one batch. What arrives while it is written schedules the next batch, a
     * delay later. When another thread is writing, tries again a delay later (it never waits: an executor
     * that runs it in the caller would run it under the store's lock, which the writer needs).
     */
    void flush() {
        if (closed) {
            return;
        }
        if (!writing.tryLock()) {
            later.execute(this::flush); // scheduled stays set: this retry takes what arrives meanwhile
            return;
        }
        try {
            scheduled.set(false);
            writeQueued();
        } finally {
            writing.unlock();
        }
    }

    /**
     * The batch {@link #FLUSH_BYTES} asked for. When another thread is writing, it leaves the records to the
     * delayed batch, which is scheduled whenever records are queued.
     */
    private void flushNow() {
        try {
            if (closed || !writing.tryLock()) {
                return;
            }
            try {
                writeQueued();
            } finally {
                writing.unlock();
            }
        } finally {
            flushingNow.set(false);
        }
    }

    /** Writes what is queued; the caller holds {@link #writing}. */
    private void writeQueued() {
        if (closed) {
            return;
        }
        List<Integer> batch = new ArrayList<>();
        queuedBytes.set(0);
        for (Integer e; (e = queued.poll()) != null; ) {
            batch.add(e);
        }
        if (batch.isEmpty()) {
            return;
        }
        try {
            write(batch);
        } catch (IOException | RuntimeException e) {
            // Without its journal the fetch still completes; it only cannot be resumed as far.
            LOG.warn("cannot write the resume journal of {} ({}); a fetch after a crash will re-read more from S3",
                    store.tempFile(), e.toString());
            closed = true;
        }
    }

    private void write(List<Integer> batch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(batch.size() * JournalFormat.RECORD);
        for (int e : batch) {
            if (e < 0) {
                JournalFormat.forgotten(buf, -e - 1);
                continue;
            }
            int crc;
            byte[] sha;
            synchronized (store) {
                // What the store holds now (a piece forgotten since is not listed; its FORGOTTEN record follows).
                if (!store.hasPiece(e)) {
                    continue;
                }
                crc = store.crc32c(e);
                sha = store.keepsDigests() ? store.sha256(e) : null;
            }
            JournalFormat.stored(buf, e, crc, sha);
        }
        buf.flip();
        if (!buf.hasRemaining()) {
            return;
        }
        // The pieces' bytes reach the disk before a record says they are there.
        store.channel().force(false);
        end += JournalFormat.writeFully(journal, buf, end);
    }

    /**
     * Writes what is queued, forces the journal to disk and stops recording. The channel stays open (its lock
     * is the caller's). Idempotent. Not to be called holding the store's lock.
     */
    void close() {
        store.stopObserving(this);
        writing.lock();
        try {
            writeQueued();
            if (closed) {
                return;
            }
            closed = true;
            try {
                journal.force(false);
            } catch (IOException e) {
                LOG.debug("cannot force the resume journal of {}", store.tempFile(), e);
            }
        } finally {
            writing.unlock();
        }
    }

    /**
     * Stops recording without writing or forcing anything: the journal is about to be deleted (the object is
     * at its destination, or what was stored is not kept). Waits for a batch being written. Idempotent.
     */
    void discard() {
        store.stopObserving(this);
        writing.lock();
        try {
            closed = true;
            queued.clear();
        } finally {
            writing.unlock();
        }
    }
}
