package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.zip.CRC32C;

/**
 * Feeds {@link IncrementalDigest}s the object's bytes as the pieces land: each segment a digest needs is
 * hashed from its start as far as the pieces present reach (its contiguous prefix), and advances as soon as the
 * next piece is there, on {@code executor}, reading from the file (the page cache, since the piece has just
 * been written). So when the last piece lands only what lies beyond the prefixes is left to hash. Segments
 * that several digests share are read once; a piece read whole is checked against the CRC32C it arrived with.
 * {@link SegmentCursors} keeps the books (which segment stands where, which can be read next, which start
 * over); this class reads, checks and completes whoever waits.
 *
 * <p>A piece forgotten (its bytes are being replaced, as a cluster repair does) sends every segment that had
 * hashed any of its bytes back to the segment's start; the digests start that segment over.
 *
 * <p>Memory: one read buffer of {@link #CHUNK} bytes and one small cursor per segment, whatever the order the
 * pieces come in; nothing but the file holds out-of-order pieces. One task at a time runs on the executor; the
 * piece events come on any thread, and everything but the read itself happens under one lock.
 */
final class PrefixHasher implements PieceStore.PieceObserver {

    /** Reads bytes of the object at a position until {@code dst} is full. */
    @FunctionalInterface
    interface Reader {
        void read(long position, ByteBuffer dst) throws IOException;
    }

    static final int CHUNK = 1 << 20;

    private final PieceLayout layout;
    private final Reader reader;
    private final Executor executor;
    private final String name;
    private final Object lock = new Object();
    private final CRC32C pieceCrc = new CRC32C();
    private ByteBuffer buffer;

    // guarded by lock
    private final SegmentCursors segments;
    private final int[] crc32c;
    private final List<CompletableFuture<Void>> waiters = new ArrayList<>();
    private boolean running;
    private Throwable failure;

    /** @param name what the messages call the object, e.g. {@code s3://bucket/key} */
    PrefixHasher(PieceLayout layout, List<IncrementalDigest> digests, Reader reader, Executor executor, String name) {
        this.layout = layout;
        this.reader = reader;
        this.executor = executor;
        this.name = name;
        this.crc32c = new int[layout.pieceCount()];
        this.segments = new SegmentCursors(layout, digests, name);
    }

    /**
     * Completes when every piece is present and every digest has all its segments (their values can be read
     * then); fails when a piece on disk is not what arrived or the file cannot be read. A piece forgotten after
     * that needs a new call.
     */
    CompletableFuture<Void> whenDone() {
        synchronized (lock) {
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            if (segments.isDone()) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            waiters.add(f);
            return f;
        }
    }

    /** Bytes still to hash, over every segment (a segment several digests share counts once). */
    long bytesLeft() {
        synchronized (lock) {
            return segments.bytesLeft();
        }
    }

    /** Stops hashing; waiters fail with a {@link CancellationException}. */
    void close() {
        List<CompletableFuture<Void>> done;
        synchronized (lock) {
            if (failure == null) {
                failure = new CancellationException("verification of " + name + " stopped");
            }
            done = takeWaiters();
        }
        done.forEach(f -> f.completeExceptionally(failure));
    }

    @Override
    public void pieceCompleted(int piece, int crc) {
        boolean start;
        synchronized (lock) {
            if (!segments.pieceCompleted(piece, crc)) {
                return;
            }
            crc32c[piece] = crc;
            start = startDrain();
        }
        afterChange(start);
    }

    @Override
    public void pieceForgotten(int piece) {
        synchronized (lock) {
            segments.pieceForgotten(piece);
        }
    }

    private void afterChange(boolean startDrain) {
        if (startDrain) {
            try {
                executor.execute(this::drain);
            } catch (RuntimeException e) {
                synchronized (lock) {
                    running = false;
                    if (failure == null) {
                        failure = new BroadcastException("cannot verify " + name + ": its executor refused a task: " + e, e);
                    }
                }
            }
        }
        completeWaiters();
    }

    /** Hashes whatever can be hashed, one read at a time, until nothing is ready. */
    private void drain() {
        while (true) {
            SegmentCursors.Cursor c;
            long from;
            long to;
            synchronized (lock) {
                c = failure == null ? segments.nextRead() : null;
                if (c == null) {
                    running = false;
                    break;
                }
                from = c.readingFrom();
                to = c.readingTo();
            }
            int piece = layout.pieceAt(from);
            boolean wholePiece = from == layout.offset(piece) && to == from + layout.length(piece);
            Throwable error = null;
            try {
                read(c, from, to, wholePiece);
            } catch (IOException | RuntimeException e) {
                error = e;
            }
            synchronized (lock) {
                // A read that raced a forgotten piece counts for nothing, whatever it found: its segment starts over.
                if (segments.readEnded(c)) {
                    if (error != null) {
                        failure = error instanceof BroadcastException ? error
                                : new BroadcastException("cannot read back " + name + " to verify it: " + error, error);
                    } else if (wholePiece && (int) pieceCrc.getValue() != crc32c[piece]) {
                        failure = new BroadcastException.ChecksumMismatch(String.format(
                                "piece %d (bytes %d-%d) of %s on disk has CRC32C %08x, but %08x arrived; the disk or"
                                        + " the file was changed under us: fetch again", piece, from, to - 1, name,
                                (int) pieceCrc.getValue(), crc32c[piece]));
                    } else {
                        segments.hashedTo(c, to);
                    }
                }
            }
        }
        completeWaiters();
    }

    private void read(SegmentCursors.Cursor c, long from, long to, boolean wholePiece) throws IOException {
        if (buffer == null) {
            buffer = ByteBuffer.allocateDirect(CHUNK);
        }
        pieceCrc.reset();
        for (long p = from; p < to; ) {
            buffer.clear().limit((int) Math.min(CHUNK, to - p));
            reader.read(p, buffer);
            buffer.flip();
            if (wholePiece) {
                pieceCrc.update(buffer.duplicate());
            }
            c.feed(buffer);
            p += buffer.limit();
        }
    }

    private void completeWaiters() {
        List<CompletableFuture<Void>> done;
        Throwable error;
        synchronized (lock) {
            if (waiters.isEmpty() || failure == null && !segments.isDone()) {
                return;
            }
            error = failure;
            done = takeWaiters();
        }
        for (CompletableFuture<Void> f : done) {
            if (error != null) {
                f.completeExceptionally(error);
            } else {
                f.complete(null);
            }
        }
    }

    // The methods below are called with the lock held.

    private boolean startDrain() {
        if (running || !segments.anyReady() || failure != null) {
            return false;
        }
        running = true;
        return true;
    }

    private List<CompletableFuture<Void>> takeWaiters() {
        List<CompletableFuture<Void>> taken = new ArrayList<>(waiters);
        waiters.clear();
        return taken;
    }
}
