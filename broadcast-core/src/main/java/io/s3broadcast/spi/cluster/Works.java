package io.s3broadcast.spi.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The works of a {@link WorkList} not completely stored: in list order, and indexed by first piece to find the
 * work that holds a piece. Not thread-safe: the work list guards it.
 */
final class Works {

    private final List<Work> list = new ArrayList<>();
    private final TreeMap<Integer, Work> byFirst = new TreeMap<>();

    /** The works in list order (read-only). */
    List<Work> inOrder() {
        return Collections.unmodifiableList(list);
    }

    int size() {
        return list.size();
    }

    boolean isEmpty() {
        return list.isEmpty();
    }

    Work get(int index) {
        return list.get(index);
    }

    /** Appends {@code w} to the end of the list. */
    void add(Work w) {
        list.add(w);
        byFirst.put(w.first, w);
    }

    void remove(Work w) {
        list.remove(w);
        byFirst.remove(w.first);
    }

    /** Puts {@code w} in the place of the work at {@code index}, which starts at the same piece. */
    void replace(int index, Work w) {
        list.set(index, w);
        byFirst.put(w.first, w);
    }

    void clear() {
        list.clear();
        byFirst.clear();
    }

    /** The work that holds {@code piece}, or null. */
    Work of(int piece) {
        Map.Entry<Integer, Work> e = byFirst.floorEntry(piece);
        return e != null && piece < e.getValue().end ? e.getValue() : null;
    }

    /** The first piece of the first work after {@code piece}, or -1 when none. */
    int nextFirstAfter(int piece) {
        Integer next = byFirst.higherKey(piece);
        return next == null ? -1 : next;
    }

    /** The work starting at or before {@code piece} closest to it, or null. */
    Work floor(int piece) {
        Map.Entry<Integer, Work> e = byFirst.floorEntry(piece);
        return e == null ? null : e.getValue();
    }
}
