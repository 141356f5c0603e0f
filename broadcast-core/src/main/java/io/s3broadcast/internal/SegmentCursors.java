package io.s3broadcast.internal;

import io.s3broadcast.spi.PieceLayout;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the digests' segments stand against the pieces present: one {@link Cursor} per segment that needs bytes
 * (shared by the digests that cut the object the same way there), how far it has been hashed, whether its next
 * piece is present (then it is queued to be read) or which piece it waits for, and which cursors go back to their
 * start when a piece is forgotten. It tells the digests of each piece that lands or is forgotten and of each
 * segment that starts over; reading the bytes and feeding them is {@link PrefixHasher}'s job.
 *
 * <p>Not thread-safe: {@link PrefixHasher} calls it under its lock, except {@link Cursor#feed} of the one cursor
 * whose read it has under way.
 */
final class SegmentCursors {

    /**
     * A wait for a piece this long is logged at DEBUG: where the digests stall, and so what is left to hash at the
     * end.
     */
    static final long WAIT_LOGGED_NANOS = 1_000_000_000L;
    /** Logged as PrefixHasher, as before this class was split from it: log configurations name that class. */
    private static final Logger LOG = LoggerFactory.getLogger(PrefixHasher.class);

    private final PieceLayout layout;
    private final List<IncrementalDigest> digests;
    private final String name;
    private final BitSet present = new BitSet();
    private final Cursor[][] cursors;
    private final ArrayDeque<Cursor> ready = new ArrayDeque<>();
    private final Map<Integer, List<Cursor>> waiting = new HashMap<>();
    /** When the digests began to wait for each piece they wait for (nanoTime); kept only at DEBUG, for its log. */
    private final Map<Integer, Long> waitingSince = new HashMap<>();
    private int unfinished;

    /** @param name what the log calls the object, e.g. {@code s3://bucket/key} */
    SegmentCursors(PieceLayout layout, List<IncrementalDigest> digests, String name) {
        this.layout = layout;
        this.digests = List.copyOf(digests);
        this.name = name;
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
    static final class Cursor {
        private final long start;
        private final long end;
        private final List<Target> targets = new ArrayList<>(1);
        /** The segment is hashed up to here. */
        private long pos;
        /** While a read is under way, the end of the bytes being read. */
        private long readingTo = -1;
        /** A piece whose bytes are being read was forgotten: the read does not count, the segment starts over. */
        private boolean startOver;
        private boolean queued;

        private Cursor(long start, long end) {
            this.start = start;
            this.end = end;
            this.pos = start;
        }

        /** Where the read under way starts. */
        long readingFrom() {
            return pos;
        }

        /** Where the read under way ends (exclusive): the end of the segment or of the piece, whichever is first. */
        long readingTo() {
            return readingTo;
        }

        /** The next bytes of the segment, to every digest that shares it. */
        void feed(ByteBuffer bytes) {
            for (Target t : targets) {
                t.digest().update(t.segment(), bytes.duplicate());
            }
        }
    }

    private record Target(IncrementalDigest digest, int segment) {
    }

    /** Records that {@code piece} landed with this CRC32C; false when it was present already (nothing changes). */
    boolean pieceCompleted(int piece, int crc32c) {
        if (present.get(piece)) {
            return false;
        }
        present.set(piece);
        digests.forEach(d -> d.pieceCompleted(piece, crc32c));
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
        return true;
    }

    /**
     * Records that {@code piece} was forgotten: every segment that had hashed any of its bytes goes back to its
     * start, at once or, if those bytes are being read, when the read ends.
     */
    void pieceForgotten(int piece) {
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
                        c.startOver = true;
                    }
                } else if (c.pos > touchedFrom) {
                    restart(c);
                }
            }
        }
    }

    /** Whether a cursor is queued to be read. */
    boolean anyReady() {
        return !ready.isEmpty();
    }

    /**
     * The next cursor whose next piece is present, its read from where it stands to the end of that piece (or of
     * the segment) marked under way; null when none is.
     */
    Cursor nextRead() {
        Cursor c;
        while ((c = ready.poll()) != null) {
            c.queued = false;
            if (c.pos < c.end && present.get(layout.pieceAt(c.pos))) {
                int piece = layout.pieceAt(c.pos);
                c.readingTo = Math.min(c.end, layout.offset(piece) + layout.length(piece));
                return c;
            }
            schedule(c);
        }
        return null;
    }

    /**
     * Ends {@code c}'s read; false when a piece it read was forgotten meanwhile, so the bytes read do not count
     * and the segment has gone back to its start.
     */
    boolean readEnded(Cursor c) {
        c.readingTo = -1;
        if (c.startOver) {
            c.startOver = false;
            restart(c);
            return false;
        }
        return true;
    }

    /** {@code c}'s segment is hashed up to {@code to}: it goes on to its next piece, or is finished. */
    void hashedTo(Cursor c, long to) {
        c.pos = to;
        if (c.pos == c.end) {
            unfinished--;
        } else {
            schedule(c);
        }
    }

    /** Bytes still to hash, over every segment (a segment several digests share counts once). */
    long bytesLeft() {
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

    /** Whether every piece is present, every segment hashed to its end and every digest has all its segments. */
    boolean isDone() {
        return unfinished == 0 && present.cardinality() == layout.pieceCount()
                && digests.stream().allMatch(IncrementalDigest::isComplete);
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
        for (Target t : c.targets) {
            t.digest().restart(t.segment());
        }
        schedule(c);
    }
}
