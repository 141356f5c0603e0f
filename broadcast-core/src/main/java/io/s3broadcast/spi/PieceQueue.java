package io.s3broadcast.spi;

/**
 * Where an {@link ObjectSource} takes the pieces it is to fetch from. Thread-safe: every connection of a
 * fetch polls it.
 *
 * <p>The flat tree hands out all pieces; phase 1 of the cluster strategies hands out this node's share,
 * and the steal strategy refills it with works taken from slower nodes.
 */
public interface PieceQueue {

    /**
     * Takes the next run of at most {@code maxPieces} consecutive pieces to fetch, or returns null when
     * this queue has nothing more to give (the fetch then finishes once its in-flight runs are stored).
     */
    PieceRun poll(int maxPieces);

    /** A queue holding every piece in [first, end), handed out in order. */
    static PieceQueue ofRange(int first, int end) {
        return new RangePieceQueue(first, end);
    }
}
