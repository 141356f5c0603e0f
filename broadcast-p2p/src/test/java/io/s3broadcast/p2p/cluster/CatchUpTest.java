package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When a node's uploads are paced so it catches up, on fake time: its uploads measured through the pacer. */
class CatchUpTest {

    private static final int PIECES = 1024;
    private final ManualScheduler time = new ManualScheduler();
    private final UploadPacer pacer = new UploadPacer(time.ticker());
    private final CatchUp catchUp = new CatchUp(pacer, time.ticker(), 0.9, PIECES, "node");
    /** Pieces this node holds. */
    private int held;

    /**
     * {@code seconds} of 100 ms ticks, each after the uploads offered the pacer {@code bytesPerSecond} (what it
     * holds back does not go) and {@code piecesPerSecond} / 10 pieces arrived; each peer holds {@code ahead}
     * pieces more than this node.
     */
    private void run(double seconds, long bytesPerSecond, int piecesPerSecond, int... ahead) {
        run(catchUp, pacer, seconds, bytesPerSecond, piecesPerSecond, ahead);
    }

    private void run(CatchUp c, UploadPacer p, double seconds, long bytesPerSecond, int piecesPerSecond, int... ahead) {
        for (int t = 0; t < Math.round(seconds * 10); t++) {
            time.advance(Duration.ofMillis(100));
            p.delayNanos(bytesPerSecond / 10);
            held += piecesPerSecond / 10;
            c.tick(held, peers(ahead), false);
        }
    }

    private int[] peers(int... ahead) {
        int[] peers = new int[ahead.length];
        for (int i = 0; i < ahead.length; i++) {
            peers[i] = held + ahead[i];
        }
        return peers;
    }

    /** Uploads at 5 MB/s, pieces at 20 a second, then at 10: this node could take its pieces in faster. */
    private void slowedAfterFullSpeed(int... ahead) {
        run(5, 5_000_000, 20, ahead);
        run(4, 5_000_000, 10, ahead);
    }

    @Test
    void theMarginIsASixtyFourthOfThePiecesAtLeastTwo() {
        assertThat(CatchUp.margin(256)).isEqualTo(4);
        assertThat(CatchUp.margin(64)).isEqualTo(2);
        assertThat(CatchUp.margin(10)).isEqualTo(2);
        assertThat(CatchUp.margin(4096)).isEqualTo(64);
    }

    @Test
    void aSlowedNodeBehindItsPeersMedianByMoreThanTheMarginUploadsAtTheShareOfItsPeak() {
        slowedAfterFullSpeed(0, 1, 2);
        assertThat(catchUp.peakBytesPerSecond()).isEqualTo(5_000_000);
        assertThat(pacer.rate()).as("not behind").isZero();

        int margin = CatchUp.margin(PIECES);
        catchUp.tick(held, peers(margin - 1, margin, margin + 1), false); // behind the median by the margin only
        assertThat(pacer.rate()).isZero();
        catchUp.tick(held, peers(margin, margin + 1, margin + 2), false);
        assertThat(pacer.rate()).isEqualTo(4_500_000);

        catchUp.tick(held, peers(0, margin, margin), false); // caught up enough
        assertThat(pacer.rate()).isZero();
    }

    @Test
    void aNodeBehindIsPacedOnlyWhileItsPiecesComeInBelowTheShareOfTheirHighestRate() {
        run(5, 5_000_000, 20, 40, 40);
        assertThat(pacer.rate()).as("behind, but its pieces come as fast as ever: its own link is the limit").isZero();
        run(2, 5_000_000, 10, 40, 40);
        assertThat(pacer.rate()).as("15 a second over the last 4 s, under 0.9 of 20").isEqualTo(4_500_000);
        run(4, 4_500_000, 20, 40, 40);
        assertThat(pacer.rate()).as("back at 20 a second").isZero();
    }

    @Test
    void notPacedBeforeAWindowOfPiecesHasPassed() {
        run(3.9, 5_000_000, 0, 40, 40);
        assertThat(pacer.rate()).isZero();
        run(0.1, 5_000_000, 0, 40, 40);
        assertThat(pacer.rate()).as("nothing came in 4 s, and nothing ever: no rate to fall below").isZero();
        run(4, 5_000_000, 20, 40, 40);
        run(0.5, 5_000_000, 0, 40, 40);
        assertThat(pacer.rate()).isEqualTo(4_500_000);
    }

    @Test
    void thePeakIsTheHighestTwoSecondWindowAndPacingDoesNotLowerIt() {
        run(1.9, 5_000_000, 20, 40, 40);
        assertThat(catchUp.peakBytesPerSecond()).as("no window has passed").isZero();
        run(2.1, 5_000_000, 20, 40, 40);
        assertThat(catchUp.peakBytesPerSecond()).isEqualTo(5_000_000);
        run(4, 5_000_000, 10, 40, 40);
        assertThat(pacer.rate()).isEqualTo(4_500_000);
        run(4, 4_000_000, 10, 40, 40); // paced (and so slower): the peak stays
        assertThat(catchUp.peakBytesPerSecond()).isEqualTo(5_000_000);
        assertThat(pacer.rate()).isEqualTo(4_500_000);
        run(4, 6_000_000, 10, 0, 0);
        assertThat(catchUp.peakBytesPerSecond()).isEqualTo(6_000_000);
        assertThat(pacer.rate()).isZero();
    }

    @Test
    void aCompleteNodeAlonePairsOrAShareOfOneAreNeverPaced() {
        slowedAfterFullSpeed(40, 40);
        assertThat(pacer.rate()).isEqualTo(4_500_000);
        catchUp.tick(held, peers(40, 40), true);
        assertThat(pacer.rate()).isZero();
        catchUp.tick(held, peers(40), false);
        assertThat(pacer.rate()).as("one peer has no median to be behind").isZero();
        catchUp.tick(held, peers(40, 40), false);
        assertThat(pacer.rate()).isEqualTo(4_500_000);
        catchUp.tick(held, new int[0], false);
        assertThat(pacer.rate()).as("every peer gone").isZero();

        UploadPacer other = new UploadPacer(time.ticker());
        CatchUp off = new CatchUp(other, time.ticker(), 1, PIECES, "node");
        run(off, other, 5, 5_000_000, 20, 40, 40);
        run(off, other, 4, 5_000_000, 10, 40, 40);
        assertThat(other.rate()).isZero();
    }

    @Test
    void theShareIsAFractionAboveZeroAtMostOne() {
        assertThatThrownBy(() -> new CatchUp(pacer, time.ticker(), 0, PIECES, "node"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CatchUp(pacer, time.ticker(), 1.5, PIECES, "node"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
