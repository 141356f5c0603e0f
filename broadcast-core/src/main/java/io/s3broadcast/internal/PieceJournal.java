package io.s3broadcast.internal;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal beside a resumable temporary file: which pieces of it were stored, with their CRC32C and (when
 * the store keeps them) SHA-256, under the object's {@link Identity}. Appended as pieces land, so a process
 * killed mid-run loses at most the records of the last second or so; a later fetch of the same object re-checks the
 * listed pieces and fetches only the rest ({@link ResumableStore}).
 *
 * <p>Format, big-endian: the magic {@code S3BJRNL1}, the identity's length and bytes, their CRC32C; then
 * {@value #RECORD}-byte records: piece index, its CRC32C, a kind (stored with SHA-256, stored without,
 * forgotten), 32 bytes of SHA-256 (zeros when none), and the CRC32C of those 41 bytes. A reader stops at the
 * first record that is short or whose CRC32C does not match (a torn write): what follows is ignored.
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

    static final byte[] MAGIC = "S3BJRNL1".getBytes(StandardCharsets.US_ASCII);
    static final int RECORD = 45;
    private static final byte STORED_WITH_SHA = 1;
    private static final byte STORED = 2;
    private static final byte FORGOTTEN = 3;
    /** An identity is a few hundred bytes; anything much larger is not a header of ours. */
    private static final int MAX_IDENTITY = 1 << 16;
    /** How long a batch gathers records before it is written (each write forces the temporary file). */
    static final long FLUSH_DELAY_SECONDS = 1;
    /** Bytes of pieces queued since the last batch that make the next batch go at once, not a delay later. */
    static final long FLUSH_BYTES = 16L << 20;

    /** What a temporary file holds: the object's version and the piece layout it was fetched with. */
    record Identity(String bucket, String key, String eTag, String versionId, long size, int pieceSize) {

        static Identity of(ObjectInfo info, PieceLayout layout) {
            return new Identity(info.bucket(), info.key(), info.eTag(), info.versionId().orElse(""), info.size(),
                    layout.pieceSize());
        }

        byte[] encode() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeUTF(bucket);
                out.writeUTF(key);
                out.writeUTF(eTag);
                out.writeUTF(versionId);
                out.writeLong(size);
                out.writeInt(pieceSize);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return bytes.toByteArray();
        }

        static Identity decode(byte[] bytes) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            return new Identity(in.readUTF(), in.readUTF(), in.readUTF(), in.readUTF(), in.readLong(), in.readInt());
        }

        /** 16 hex digits of the SHA-256 of the identity: part of the temporary file's name. */
        String hash() {
            return HexFormat.of().formatHex(Sha256.of(ByteBuffer.wrap(encode())), 0, 8);
        }

        String object() {
            return "s3://" + bucket + "/" + key;
        }
    }

    /** A stored piece as the journal lists it; {@code sha256} null when it was not kept. */
    record Entry(int crc32c, byte[] sha256) {
    }

    /**
     * A journal as read: its identity, the pieces it lists as stored (by index, in order) and the length of its
     * valid prefix (a torn last record is cut off there before appending).
     */
    record Contents(Identity identity, Map<Integer, Entry> pieces, long validLength) {
    }

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

    /** Writes a new journal's header at the start of {@code channel}, dropping whatever it held. */
    static void writeHeader(FileChannel channel, Identity identity) throws IOException {
        byte[] id = identity.encode();
        ByteBuffer buf = ByteBuffer.allocate(MAGIC.length + 8 + id.length);
        buf.put(MAGIC).putInt(id.length).put(id).putInt(crc(id, 0, id.length)).flip();
        channel.truncate(0);
        writeFully(channel, buf, 0);
    }

    /** Appends records saying {@code pieces} are forgotten (they were listed but found wrong). */
    static void appendForgotten(FileChannel channel, List<Integer> pieces) throws IOException {
        if (pieces.isEmpty()) {
            return;
        }
        ByteBuffer buf = ByteBuffer.allocate(pieces.size() * RECORD);
        for (int p : pieces) {
            record(buf, p, FORGOTTEN, 0, null);
        }
        buf.flip();
        writeFully(channel, buf, channel.size());
    }

    /**
     * Reads a journal from the start of {@code channel}, or returns null when it has no valid header (empty,
     * another format, damaged). Records after the first damaged one are ignored; pieces outside the identity's
     * layout end the reading too.
     */
    static Contents read(FileChannel channel) throws IOException {
        channel.position(0);
        InputStream raw = new BufferedInputStream(Channels.newInputStream(channel), 1 << 16);
        DataInputStream in = new DataInputStream(raw);
        Identity identity;
        long valid;
        try {
            byte[] magic = new byte[MAGIC.length];
            in.readFully(magic);
            int n = in.readInt();
            if (!Arrays.equals(magic, MAGIC) || n < 0 || n > MAX_IDENTITY) {
                return null;
            }
            byte[] id = new byte[n];
            in.readFully(id);
            if (in.readInt() != crc(id, 0, n)) {
                return null;
            }
            identity = Identity.decode(id);
            valid = MAGIC.length + 8L + n;
        } catch (EOFException e) {
            return null;
        }
        if (identity.size() < 0 || identity.pieceSize() <= 0) {
            return null;
        }
        int pieceCount = new PieceLayout(identity.size(), identity.pieceSize()).pieceCount();
        Map<Integer, Entry> pieces = new TreeMap<>();
        byte[] rec = new byte[RECORD];
        while (true) {
            int got = in.readNBytes(rec, 0, RECORD);
            if (got < RECORD) {
                break;
            }
            ByteBuffer b = ByteBuffer.wrap(rec);
            int piece = b.getInt();
            int pieceCrc = b.getInt();
            byte kind = b.get();
            byte[] sha = new byte[Sha256.BYTES];
            b.get(sha);
            if (b.getInt() != crc(rec, 0, RECORD - 4) || piece < 0 || piece >= pieceCount
                    || kind < STORED_WITH_SHA || kind > FORGOTTEN) {
                break;
            }
            switch (kind) {
                case STORED_WITH_SHA -> pieces.put(piece, new Entry(pieceCrc, sha));
                case STORED -> pieces.put(piece, new Entry(pieceCrc, null));
                default -> pieces.remove(piece);
            }
            valid += RECORD;
        }
        return new Contents(identity, pieces, valid);
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
        ByteBuffer buf = ByteBuffer.allocate(batch.size() * RECORD);
        for (int e : batch) {
            if (e < 0) {
                record(buf, -e - 1, FORGOTTEN, 0, null);
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
            record(buf, e, sha == null ? STORED : STORED_WITH_SHA, crc, sha);
        }
        buf.flip();
        if (!buf.hasRemaining()) {
            return;
        }
        // The pieces' bytes reach the disk before a record says they are there.
        store.channel().force(false);
        end += writeFully(journal, buf, end);
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

    private static void record(ByteBuffer buf, int piece, byte kind, int pieceCrc, byte[] sha) {
        int start = buf.position();
        buf.putInt(piece).putInt(pieceCrc).put(kind).put(sha == null ? new byte[Sha256.BYTES] : sha);
        buf.putInt(crc(buf.array(), start, RECORD - 4));
    }

    private static int crc(byte[] bytes, int offset, int length) {
        CRC32C c = new CRC32C();
        c.update(bytes, offset, length);
        return (int) c.getValue();
    }

    private static int writeFully(FileChannel channel, ByteBuffer buf, long position) throws IOException {
        int n = 0;
        while (buf.hasRemaining()) {
            n += channel.write(buf, position + n);
        }
        return n;
    }
}
