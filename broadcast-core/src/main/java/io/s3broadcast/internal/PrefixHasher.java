package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds {@link IncrementalDigest}s the object's bytes as the pieces land: each segment a digest needs is
 * hashed from its start as far as the pieces present reach (its contiguous prefix), and advances as soon as the
 * next piece is there, on {@code executor}, reading from the file (the page cache, since the piece has just
 * been written). So when the last piece lands only what lies beyond the prefixes is left to hash. Segments
 * that several digests share are read once; a piece read whole is checked against the CRC32C it arrived with.
 *
 * <p>A piece forgotten (its bytes are being replaced, as a cluster repair does) sends every segment that had
 * hashed any of its bytes back to the segment's start; the digests start that segment over.
 *
 * <p>Memory: one read buffer of {@link #CHUNK} bytes and one small cursor per segment, whatever the order the
 * pieces come in; nothing but the file holds out-of-order pieces. One task at a time runs on the executor.
 */
final class PrefixHasher implements PieceStore.PieceObserver {

    /** Reads bytes of the object at a position until {@code dst} is full. */
    @FunctionalInterface
    interface Reader {
        void read(long position, ByteBuffer dst) throws IOException;
    }

    static final int CHUNK = 1 << 20;
    /** A wait for a piece this long is logged at DEBUG: where the digests stall, and so what is left to hash at the end. */
    static final long WAIT_LOGGED_NANOS = 1_000_000_000L;
    private static final Logger LOG = LoggerFactory.getLogger(PrefixHasher.class);

    private final PieceLayout layout;
    private final List<IncrementalDigest> digests;
    private final Reader reader;
    private final Executor executor;
    private final String name;
    private final Object lock = new Object();
    private final CRC32C pieceCrc = new CRC32C();
    private ByteBuffer buffer;

    // guarded by lock
    private final BitSet present = new BitSet();
    private final int[] crc32c;
    private final Cursor[][] cursors;
    private final ArrayDeque<Cursor> ready = new ArrayDeque<>();
    private final Map<Integer, List<Cursor>> waiting = new HashMap<>();
    private final List<CompletableFuture<Void>> waiters = new ArrayList<>();
    /** When the digests began to wait for each piece they wait for (System.nanoTime); kept only at DEBUG, for its log. */
    private final Map<Integer, Long> waitingSince = new HashMap<>();
    private int unfinished;
    private boolean running;
    private Throwable failure;

    /** @param name what the messages call the object, e.g. {@code s3://bucket/key} */
    PrefixHasher(PieceLayout layout, List<IncrementalDigest> digests, Reader reader, Executor executor, String name) {
        this.layout = layout;
        this.digests = List.copyOf(digests);
        this.reader = reader;
        this.executor = executor;
        this.name = name;
        this.crc32c = new int[layout.pieceCount()];
        this.cursors = new Cursor[this.digests.size()][];
        Map<List<Long>, Cursor> byRange = new HashMap<>();
        for (int d = 0; d < this.digests.size(); d++) {
            IncrementalDigest digest = this.digests.get(d);
            cursors[d] = new Cursor[digest.segmentCount()];
            for (int s = 0; s < digest.segmentCount(); s++) {
                if (digest.needsBytes(s)) {
                    Cursor c = byRange.computeIfAbsent(List.of(digest.start(s), digest.end(s)),
                            r -> new Cursor(r.get(0), r.get(1)));
                    c.targets.add(new Target(digest, s));
                    cursors[d][s] = c;
                }
            }
        }
        unfinished = byRange.size();
        byRange.values().forEach(this::schedule);
    }

    /** One segment's progress, shared by the digests that cut the object the same way there. */
    private static final class Cursor {
        final long start;
        final long end;
        final List<Target> targets = new ArrayList<>(1);
        long pos;
        /** Bumped when the cursor starts over; a read begun before does not count. */
        int generation;
        /** While a read is under way, the end of the bytes being read. */
        long readingTo = -1;
        boolean queued;

        Cursor(long start, long end) {
            this.start = start;
            this.end = end;
            this.pos = start;
        }
    }

    private record Target(IncrementalDigest digest, int segment) {
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
            if (isDone()) {
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
            Set<Cursor> seen = Collections.newSetFromMap(new IdentityHashMap<>());
            long left = 0;
            for (Cursor[] row : cursors) {
                for (Cursor c : row) {
                    if (c != null && seen.add(c)) {
                        left += c.end - c.pos;
                    }
                }
            }
            return left;
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
            if (present.get(piece)) {
                return;
            }
            present.set(piece);
            crc32c[piece] = crc;
            digests.forEach(d -> d.pieceCompleted(piece, crc));
            List<Cursor> woken = waiting.remove(piece);
            Long since = waitingSince.remove(piece);
            long waited = since == null ? 0 : System.nanoTime() - since;
            if (waited >= WAIT_LOGGED_NANOS && LOG.isDebugEnabled()) {
                LOG.debug("{}: hashing waited {} ms for piece {} ({} of {} pieces present)", name, waited / 1_000_000,
                        piece, present.cardinality(), layout.pieceCount());
            }
            if (woken != null) {
                woken.forEach(this::schedule);
            }
            start = startDrain();
        }
        afterChange(start);
    }

    @Override
    public void pieceForgotten(int piece) {
        synchronized (lock) {
            if (!present.get(piece)) {
                return;
            }
            present.clear(piece);
            long from = layout.offset(piece);
            long to = from + layout.length(piece);
            for (int d = 0; d < digests.size(); d++) {
                IncrementalDigest digest = digests.get(d);
                digest.pieceForgotten(piece);
                int[] range = digest.segmentsOverlapping(from, to);
                for (int s = range[0]; s < range[1]; s++) {
                    Cursor c = cursors[d][s];
                    if (c == null) {
                        continue;
                    }
                    long touchedFrom = Math.max(c.start, from);
                    if (c.readingTo >= 0) {
                        if (touchedFrom < c.readingTo) {
                            c.generation++; // the drain starts it over once its read ends
                        }
                    } else if (c.pos > touchedFrom) {
                        restart(c);
                    }
                }
            }
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
            Cursor c;
            long from;
            long to;
            int generation;
            int piece;
            synchronized (lock) {
                c = failure == null ? nextReady() : null;
                if (c == null) {
                    running = false;
                    break;
                }
                piece = layout.pieceAt(c.pos);
                from = c.pos;
                to = Math.min(c.end, layout.offset(piece) + layout.length(piece));
                c.readingTo = to;
                generation = c.generation;
            }
            boolean wholePiece = from == layout.offset(piece) && to == from + layout.length(piece);
            Throwable error = null;
            try {
                read(c, from, to, wholePiece);
            } catch (IOException | RuntimeException e) {
                error = e;
            }
            synchronized (lock) {
                c.readingTo = -1;
                if (c.generation != generation) {
                    restart(c);
                } else if (error != null) {
                    failure = error instanceof BroadcastException ? error
                            : new BroadcastException("cannot read back " + name + " to verify it: " + error, error);
                } else if (wholePiece && (int) pieceCrc.getValue() != crc32c[piece]) {
                    failure = new BroadcastException.ChecksumMismatch(String.format(
                            "piece %d (bytes %d-%d) of %s on disk has CRC32C %08x, but %08x arrived; the disk or the"
                                    + " file was changed under us: fetch again", piece, from, to - 1, name,
                            (int) pieceCrc.getValue(), crc32c[piece]));
                } else {
                    c.pos = to;
                    if (c.pos == c.end) {
                        unfinished--;
                    } else {
                        schedule(c);
                    }
                }
            }
        }
        completeWaiters();
    }

    private void read(Cursor c, long from, long to, boolean wholePiece) throws IOException {
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
            for (Target t : c.targets) {
                t.digest().update(t.segment(), buffer.duplicate());
            }
            p += buffer.limit();
        }
    }

    // The methods below are called with the lock held.

    private Cursor nextReady() {
        Cursor c;
        while ((c = ready.poll()) != null) {
            c.queued = false;
            if (c.pos < c.end && present.get(layout.pieceAt(c.pos))) {
                return c;
            }
            schedule(c);
        }
        return null;
    }

    /** Queues {@code c} to be read if its next piece is present, else waits for that piece. */
    private void schedule(Cursor c) {
        if (c.pos >= c.end || c.queued || c.readingTo >= 0) {
            return;
        }
        int piece = layout.pieceAt(c.pos);
        if (present.get(piece)) {
            c.queued = true;
            ready.add(c);
        } else {
            if (LOG.isDebugEnabled()) {
                waitingSince.putIfAbsent(piece, System.nanoTime());
            }
            List<Cursor> list = waiting.computeIfAbsent(piece, k -> new ArrayList<>(1));
            if (!list.contains(c)) {
                list.add(c);
            }
        }
    }

    private void restart(Cursor c) {
        if (c.pos == c.end) {
            unfinished++;
        }
        c.pos = c.start;
        c.generation++;
        for (Target t : c.targets) {
            t.digest().restart(t.segment());
        }
        schedule(c);
    }

    private boolean startDrain() {
        if (running || ready.isEmpty() || failure != null) {
            return false;
        }
        running = true;
        return true;
    }

    private boolean isDone() {
        return unfinished == 0 && present.cardinality() == layout.pieceCount()
                && digests.stream().allMatch(IncrementalDigest::isComplete);
    }

    private List<CompletableFuture<Void>> takeWaiters() {
        List<CompletableFuture<Void>> taken = new ArrayList<>(waiters);
        waiters.clear();
        return taken;
    }

    private void completeWaiters() {
        List<CompletableFuture<Void>> done;
        Throwable error;
        synchronized (lock) {
            if (waiters.isEmpty() || failure == null && !isDone()) {
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
}
