package io.s3broadcast.spi.cluster;

import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a victim gives a thief ({@link WorkList#giveAway(int)}): the last {@code ceil(u / 2)} works not started,
 * where {@code u} is their number, so the victim keeps the works its connections are reading and half of the
 * rest. With one unstarted work or none, the end of the list is split instead, so the last works end together:
 * the last work with two or more queued pieces after its last handed-out one keeps its head and gives the back
 * half of that tail (a work not started is split in half; a started one keeps what its fetch is reading). With
 * one connection this is the paper's rule (node B, holding works 38 to 63 with 38 under way, gives 51 to 63);
 * with several connections, each reading its own work, the paper's {@code ceil(len / 2)} of the whole list would
 * leave the victim little but its works in flight. Not thread-safe: the work list calls it under its lock.
 */
final class WorkGiving {

    private WorkGiving() {
    }

    /** Removes from {@code works} and returns, in list order, what is given; at most {@code maxWorks} works. */
    static List<PieceRun> giveAway(Works works, int maxWorks) {
        if (maxWorks < 0) {
            throw new IllegalArgumentException("maxWorks must be >= 0, was " + maxWorks);
        }
        int unstarted = 0;
        for (Work w : works.inOrder()) {
            if (!w.started()) {
                unstarted++;
            }
        }
        if (unstarted <= 1 && maxWorks > 0) {
            PieceRun tail = splitTail(works);
            if (tail != null) {
                return List.of(tail);
            }
        }
        int want = Math.min((unstarted + 1) / 2, maxWorks);
        List<Work> taken = new ArrayList<>(want);
        for (int i = works.size() - 1; i >= 0 && taken.size() < want; i--) {
            Work w = works.get(i);
            if (!w.started()) {
                taken.add(w);
            }
        }
        Collections.reverse(taken);
        List<PieceRun> given = new ArrayList<>(taken.size());
        for (Work w : taken) {
            works.remove(w);
            given.add(w.run());
        }
        return given;
    }

    /**
     * The end of the share, split: the last work (from the end of the list) with at least two queued pieces
     * after its last handed-out one keeps its head, and the back half of that queued tail is returned as a new
     * work (the victim keeps what it reads and has read, the thief takes the tail). Null when no work has such
     * a tail.
     */
    private static PieceRun splitTail(Works works) {
        for (int i = works.size() - 1; i >= 0; i--) {
            Work w = works.get(i);
            int queuedTail = w.count() - w.handed.length();
            if (queuedTail < 2) {
                continue;
            }
            int mid = w.end - queuedTail / 2;
            Work kept = new Work(w.first, mid);
            kept.handed.or(w.handed);
            kept.stored.or(w.stored);
            works.replace(i, kept);
            return new PieceRun(mid, w.end);
        }
        return null;
    }
}
