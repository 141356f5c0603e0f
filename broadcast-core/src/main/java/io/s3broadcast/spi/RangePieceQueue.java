package io.s3broadcast.spi;

import java.util.concurrent.atomic.AtomicInteger;

final class RangePieceQueue implements PieceQueue {

    private final AtomicInteger next;
    private final int end;

    RangePieceQueue(int first, int end) {
        if (first < 0 || end < first) {
            throw new IllegalArgumentException("bad piece range [" + first + ", " + end + ")");
        }
        this.next = new AtomicInteger(first);
        this.end = end;
    }

    @Override
    public PieceRun poll(int maxPieces) {
        if (maxPieces <= 0) {
            throw new IllegalArgumentException("maxPieces must be > 0, was " + maxPieces);
        }
        while (true) {
            int first = next.get();
            if (first >= end) {
                return null;
            }
            int runEnd = (int) Math.min((long) first + maxPieces, end);
            if (next.compareAndSet(first, runEnd)) {
                return new PieceRun(first, runEnd);
            }
        }
    }
}
