package io.s3broadcast.internal;

import io.s3broadcast.CompletedFetch;
import java.time.Duration;

/**
 * Times one fetch from its last piece to its file in place, in the parts {@link CompletedFetch.AfterLastPiece}
 * reports: each step's end is marked, on the fetch's clock ({@link ProgressTracker#elapsed()}), by whichever
 * thread ends it, so the marks are volatile.
 */
final class AfterLastPieceTimer {

    private final ProgressTracker clock;
    /** When (since the start) the last piece was in, the spot check done, and the end-to-end check done. */
    private volatile Duration lastPieceAt;
    private volatile Duration spotCheckedAt;
    private volatile Duration hashedAt;

    AfterLastPieceTimer(ProgressTracker clock) {
        this.clock = clock;
    }

    /** Every piece is in the store; a fetch without a spot check (the flat tree) goes straight on to hashing. */
    void lastPiece() {
        lastPieceAt = clock.elapsed();
        spotCheckedAt = lastPieceAt;
    }

    /** The cluster's spot check against S3 is done. */
    void spotChecked() {
        spotCheckedAt = clock.elapsed();
    }

    /** The end-to-end check has hashed what was left. */
    void hashed() {
        hashedAt = clock.elapsed();
    }

    /** The time from the last piece to {@code done}, in its parts; none before every step is marked. */
    CompletedFetch.AfterLastPiece until(Duration done) {
        Duration last = lastPieceAt;
        Duration spot = spotCheckedAt;
        Duration hashed = hashedAt;
        if (last == null || spot == null || hashed == null) {
            return CompletedFetch.AfterLastPiece.NONE;
        }
        return new CompletedFetch.AfterLastPiece(spot.minus(last), hashed.minus(spot), done.minus(hashed));
    }
}
