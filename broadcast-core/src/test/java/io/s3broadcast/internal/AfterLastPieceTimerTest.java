package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The time from the last piece to the file in place, in its parts, on fake time. */
class AfterLastPieceTimerTest {

    private final ManualScheduler time = new ManualScheduler();
    private final ProgressTracker tracker = new ProgressTracker(List.of(), time.ticker());
    private final AfterLastPieceTimer timer = new AfterLastPieceTimer(tracker);

    @Test
    void aClusterFetchSpendsItsTimeOnTheSpotCheckTheHashingAndTheCommit() {
        time.advance(Duration.ofSeconds(5)); // the fill
        timer.lastPiece();
        time.advance(Duration.ofMillis(2_000));
        timer.spotChecked();
        time.advance(Duration.ofMillis(300));
        timer.hashed();
        time.advance(Duration.ofMillis(50));

        assertThat(timer.until(tracker.elapsed())).isEqualTo(new CompletedFetch.AfterLastPiece(
                Duration.ofMillis(2_000), Duration.ofMillis(300), Duration.ofMillis(50)));
    }

    @Test
    void withoutASpotCheckTheHashingStartsAtTheLastPiece() {
        time.advance(Duration.ofSeconds(1));
        timer.lastPiece();
        time.advance(Duration.ofMillis(120));
        timer.hashed();
        time.advance(Duration.ofMillis(30));

        assertThat(timer.until(tracker.elapsed()))
                .isEqualTo(new CompletedFetch.AfterLastPiece(Duration.ZERO, Duration.ofMillis(120), Duration.ofMillis(30)));
    }

    @Test
    void nothingIsReportedUntilEveryStepIsMarked() {
        assertThat(timer.until(tracker.elapsed())).isEqualTo(CompletedFetch.AfterLastPiece.NONE);
        timer.lastPiece();
        time.advance(Duration.ofMillis(10));
        assertThat(timer.until(tracker.elapsed())).isEqualTo(CompletedFetch.AfterLastPiece.NONE);
    }
}
