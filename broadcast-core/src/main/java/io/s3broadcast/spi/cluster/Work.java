package io.s3broadcast.spi.cluster;

import io.s3broadcast.spi.PieceRun;
import java.util.BitSet;

/**
 * One work of a {@link WorkList}: a run of pieces and the state of each, <em>queued</em> (not handed out), <em>in
 * flight</em> (handed to the fetch, not stored) or <em>stored</em>. Not thread-safe: the work list guards it.
 */
final class Work {

    final int first;
    final int end;
    /** Pieces handed to the fetch or stored, relative to {@link #first}. */
    final BitSet handed = new BitSet();
    /** Pieces stored, relative to {@link #first}; always a subset of {@link #handed}. */
    final BitSet stored = new BitSet();

    Work(int first, int end) {
        this.first = first;
        this.end = end;
    }

    int count() {
        return end - first;
    }

    /** Any piece in flight or stored: a started work is never given away. */
    boolean started() {
        return !handed.isEmpty();
    }

    PieceRun run() {
        return new PieceRun(first, end);
    }
}
