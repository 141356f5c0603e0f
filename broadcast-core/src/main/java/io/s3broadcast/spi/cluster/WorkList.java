package io.s3broadcast.spi.cluster;

import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * A node's phase-1 work list, the paper's {@code workList}: the works this node is to read from S3, in
 * the order it reads them, and the {@link PieceQueue} its S3 fetch polls. Thread-safe: every S3
 * connection polls it, the fetch's listener reports stored pieces, and the peer exchange gives works away
 * and appends works it received, all at once.
 *
 * <p>Each piece of a work is in one of three states: <em>queued</em> (not handed out yet), <em>in
 * flight</em> (handed to the fetch by {@link #poll}, not stored yet) or <em>stored</em> (reported by
 * {@link #pieceStored}, whoever delivered it). A work leaves the list when all its pieces are stored. A
 * work is <em>started</em> once any of its pieces is in flight or stored; a started work is never given
 * away, so a piece the fetch is reading is never also read by a thief.
 *
 * <p>{@link #poll} hands out the lowest queued pieces of the first work in list order that has any,
 * within that work; a run continues into the next work only when that work follows it directly both in
 * the list and in piece order and is not started (two adjacent works of one share, say). Stored pieces
 * are skipped, so a piece that arrived from a peer before the fetch reached it is not read again.
 *
 * <p>What {@link #giveAway()} gives is {@link WorkGiving}'s rule: half the works not started, else the back half
 * of the list's queued tail. The count a node advertises to its peers ({@link Remaining#works()}) is the paper's
 * {@code len}: every work not completely stored, started or not. The works themselves are kept in {@link Works},
 * each a {@link Work}; this class is their thread-safe face.
 */
public final class WorkList implements PieceQueue, SourcePieces {

    private final int pieceCount;
    /** Works not completely stored, in list order. */
    private final Works list = new Works();

    /**
     * A list of the given works, in the given order, for an object of {@code pieceCount} pieces. Works must
     * lie inside the object and must not overlap.
     */
    public WorkList(int pieceCount, List<PieceRun> works) {
        if (pieceCount < 0) {
            throw new IllegalArgumentException("pieceCount must be >= 0, was " + pieceCount);
        }
        this.pieceCount = pieceCount;
        for (PieceRun run : works) {
            checkInside(run);
            Work below = list.floor(run.end() - 1);
            if (below != null && below.end > run.first()) {
                throw new IllegalArgumentException("work " + run + " overlaps work " + below.run());
            }
            list.add(new Work(run.first(), run.end()));
        }
    }

    /** Node {@code index}'s share of {@code nodes} nodes, cut into works of {@code workSize} pieces (see {@link Shares}). */
    public static WorkList forShare(int pieceCount, int nodes, int index, int workSize) {
        return new WorkList(pieceCount, Shares.works(pieceCount, nodes, index, workSize));
    }

    /**
     * Takes the next run of at most {@code maxPieces} queued pieces and marks them in flight, or returns
     * null when no piece is queued (the list may still hold works whose pieces are all in flight, and may
     * get new works through {@link #append}; the fetch that got null then finishes, and the owner starts a
     * new fetch over this list after appending).
     */
    @Override
    public synchronized PieceRun poll(int maxPieces) {
        if (maxPieces <= 0) {
            throw new IllegalArgumentException("maxPieces must be > 0, was " + maxPieces);
        }
        for (int i = 0; i < list.size(); i++) {
            Work w = list.get(i);
            int rel = w.handed.nextClearBit(0);
            if (rel >= w.count()) {
                continue;
            }
            int start = w.first + rel;
            int end = start;
            Work cur = w;
            int idx = i;
            while (true) {
                while (end < cur.end && end - start < maxPieces && !cur.handed.get(end - cur.first)) {
                    cur.handed.set(end - cur.first);
                    end++;
                }
                if (end == cur.end && end - start < maxPieces && idx + 1 < list.size()) {
                    Work next = list.get(idx + 1);
                    if (next.first == end && !next.started()) {
                        cur = next;
                        idx++;
                        continue;
                    }
                }
                return new PieceRun(start, end);
            }
        }
        return null;
    }

    /**
     * Records that {@code piece} is stored, whether the S3 fetch or a peer delivered it; a work whose
     * pieces are all stored leaves the list. Returns false, changing nothing, when the piece is in no work
     * of this list (given away, say, or never this node's).
     */
    public synchronized boolean pieceStored(int piece) {
        Work w = workOf(piece);
        if (w == null) {
            return false;
        }
        int rel = piece - w.first;
        w.handed.set(rel);
        w.stored.set(rel);
        if (w.stored.cardinality() == w.count()) {
            list.remove(w);
        }
        return true;
    }

    /**
     * Puts every in-flight piece back in the queue, for when a fetch failed and its runs will not be
     * stored; a new fetch over this list reads them again. Returns how many pieces were put back.
     */
    public synchronized int requeueInFlight() {
        int n = 0;
        for (Work w : list.inOrder()) {
            n += w.handed.cardinality() - w.stored.cardinality();
            w.handed.clear();
            w.handed.or(w.stored);
        }
        return n;
    }

    /**
     * Empties the list and returns, in list order, the runs of pieces not stored yet: what a node whose S3
     * reads failed hands to the cluster. Call it with nothing in flight ({@link #requeueInFlight} first).
     */
    public synchronized List<PieceRun> releaseAll() {
        List<PieceRun> out = new ArrayList<>();
        for (Work w : list.inOrder()) {
            int rel = w.stored.nextClearBit(0);
            while (rel < w.count()) {
                int end = w.stored.nextSetBit(rel);
                if (end < 0 || end > w.count()) {
                    end = w.count();
                }
                out.add(new PieceRun(w.first + rel, w.first + end));
                rel = w.stored.nextClearBit(end);
            }
        }
        list.clear();
        return out;
    }

    /**
     * Answers a {@code giveWork}: removes and returns, in list order, the last {@code ceil(u / 2)} works of the
     * list that are not started, where {@code u} is their number; with one unstarted work or none, the back
     * half of the queued tail of the last work that has two or more queued pieces (see the class comment);
     * none when nothing is queued.
     */
    public List<PieceRun> giveAway() {
        return giveAway(Integer.MAX_VALUE);
    }

    /** As {@link #giveAway()}, giving at most {@code maxWorks} works (a response must fit in one frame). */
    public synchronized List<PieceRun> giveAway(int maxWorks) {
        return WorkGiving.giveAway(list, maxWorks);
    }

    /**
     * Appends works received from a peer (or reassigned from a dead node) to the end of the list, in the
     * given order. Pieces already in a work of this list are left out (a work is trimmed or split around
     * them), so a piece is never queued twice. Pieces this node already holds from elsewhere should be
     * reported with {@link #pieceStored} afterwards, so they are not read again. Returns how many pieces
     * were added.
     */
    public synchronized int append(List<PieceRun> works) {
        for (PieceRun run : works) {
            checkInside(run);
        }
        int added = 0;
        for (PieceRun run : works) {
            int cursor = run.first();
            while (cursor < run.end()) {
                Work holder = workOf(cursor);
                if (holder != null) {
                    cursor = holder.end;
                    continue;
                }
                int next = list.nextFirstAfter(cursor);
                int segEnd = next < 0 ? run.end() : Math.min(run.end(), next);
                list.add(new Work(cursor, segEnd));
                added += segEnd - cursor;
                cursor = segEnd;
            }
        }
        return added;
    }

    /**
     * Removes those of {@code works} that are works of this list (same bounds) and not started, and returns them:
     * a node handing back works another node owns ({@link RendezvousShares#ownedBy}). Started works stay.
     */
    public synchronized List<PieceRun> removeUnstarted(Collection<PieceRun> works) {
        List<PieceRun> removed = new ArrayList<>();
        for (PieceRun run : works) {
            Work w = list.floor(run.first());
            if (w != null && w.first == run.first() && w.end == run.end() && !w.started()) {
                list.remove(w);
                removed.add(run);
            }
        }
        return removed;
    }

    /** How much is left; {@link Remaining#works()} is the {@code len} of {@link #giveAway()}. */
    public synchronized Remaining remaining() {
        int unstarted = 0;
        int queued = 0;
        int inFlight = 0;
        for (Work w : list.inOrder()) {
            if (!w.started()) {
                unstarted++;
            }
            int handed = w.handed.cardinality();
            queued += w.count() - handed;
            inFlight += handed - w.stored.cardinality();
        }
        return new Remaining(list.size(), unstarted, queued, inFlight);
    }

    /** True when every work of the list is stored (the list is empty). */
    public synchronized boolean isEmpty() {
        return list.isEmpty();
    }

    /** The works in the list, in list order, with their original bounds (some pieces may be stored). */
    public synchronized List<PieceRun> works() {
        List<PieceRun> out = new ArrayList<>(list.size());
        for (Work w : list.inOrder()) {
            out.add(w.run());
        }
        return out;
    }

    @Override
    public synchronized boolean isPending(int piece) {
        Work w = workOf(piece);
        return w != null && !w.stored.get(piece - w.first);
    }

    @Override
    public synchronized boolean isInFlight(int piece) {
        Work w = workOf(piece);
        return w != null && w.handed.get(piece - w.first) && !w.stored.get(piece - w.first);
    }

    @Override
    public synchronized String toString() {
        return "WorkList" + remaining();
    }

    private Work workOf(int piece) {
        return list.of(piece);
    }

    private void checkInside(PieceRun run) {
        if (run.end() > pieceCount) {
            throw new IllegalArgumentException("work " + run + " outside object of " + pieceCount + " pieces");
        }
    }

    /**
     * Counts of a work list.
     *
     * @param works the paper's {@code len}: works not completely stored, started or not; what a node
     *     advertises to its peers
     * @param unstartedWorks works with no piece in flight or stored: what {@link #giveAway()} may give
     * @param piecesToHandOut queued pieces: zero when {@link #poll} would return null
     * @param piecesInFlight pieces handed to the fetch and not stored yet
     */
    public record Remaining(int works, int unstartedWorks, int piecesToHandOut, int piecesInFlight) {

        /** Nothing is queued: the fetch is idle or only finishing runs in flight. */
        public boolean nothingToHandOut() {
            return piecesToHandOut == 0;
        }
    }
}
