package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When a node's uploads are paced so it catches up, on fake time: its uploads measured through the pacer. */
class CatchUpTest {

    private static final int PIECES = 256;
    private final ManualScheduler time = new ManualScheduler();
    private final UploadPacer pacer = new UploadPacer(time.ticker());
    private final CatchUp catchUp = new CatchUp(pacer, time.ticker(), 0.9, PIECES, "node");

    /**
     * {@code seconds} of 100 ms ticks, each after the uploads offered the pacer {@code bytesPerSecond} (what it
     * holds back does not go).
     */
    private void upload(double seconds, long bytesPerSecond, int mine, int... peers) {
        for (int t = 0; t < seconds * 10; t++) {
            time.advance(Duration.ofMillis(100));
            pacer.delayNanos(bytesPerSecond / 10);
            catchUp.tick(mine, peers.clone(), false);
        }
    }

    @Test
    void theMarginIsASixtyFourthOfThePiecesAtLeastTwo() {
        assertThat(CatchUp.margin(256)).isEqualTo(4);
        assertThat(CatchUp.margin(64)).isEqualTo(2);
        assertThat(CatchUp.margin(10)).isEqualTo(2);
        assertThat(CatchUp.margin(4096)).isEqualTo(64);
    }

    @Test
    void aNodeBehindItsPeersMedianByMoreThanTheMarginUploadsAtTheShareOfItsPeak() {
        upload(3, 5_000_000, 100, 100, 101, 102);
        assertThat(catchUp.peakBytesPerSecond()).isEqualTo(5_000_000);
        assertThat(pacer.rate()).isZero();

        catchUp.tick(97, new int[] {100, 101, 102}, false); // 4 behind the median 101: within the margin
        assertThat(pacer.rate()).isZero();
        catchUp.tick(96, new int[] {100, 101, 102}, false);
        assertThat(pacer.rate()).isEqualTo(4_500_000);

        catchUp.tick(97, new int[] {100, 101, 102}, false); // caught up enough
        assertThat(pacer.rate()).isZero();
    }

    @Test
    void thePeakIsTheHighestTwoSecondWindowAndPacingDoesNotLowerIt() {
        upload(1.9, 5_000_000, 0, 10, 10);
        assertThat(catchUp.peakBytesPerSecond()).as("no window has passed").isZero();
        assertThat(pacer.rate()).as("so nothing is paced yet").isZero();
        upload(2, 5_000_000, 0, 10, 10);
        assertThat(catchUp.peakBytesPerSecond()).isEqualTo(5_000_000);
        assertThat(pacer.rate()).isEqualTo(4_500_000);
        upload(4, 4_000_000, 0, 10, 10); // paced (and so slower): the peak stays
        assertThat(catchUp.peakBytesPerSecond()).isEqualTo(5_000_000);
        upload(4, 6_000_000, 20, 10, 10);
        assertThat(catchUp.peakBytesPerSecond()).isEqualTo(6_000_000);
        assertThat(pacer.rate()).isZero();
    }

    @Test
    void aCompleteNodeAlonePairsOrAShareOfOneAreNeverPaced() {
        upload(3, 5_000_000, 0, 200, 200);
        assertThat(pacer.rate()).isEqualTo(4_500_000);
        catchUp.tick(PIECES, new int[] {PIECES, PIECES}, true);
        assertThat(pacer.rate()).isZero();
        catchUp.tick(0, new int[] {200}, false);
        assertThat(pacer.rate()).as("one peer has no median to be behind").isZero();
        upload(3, 5_000_000, 0, 200, 200);
        assertThat(pacer.rate()).isEqualTo(4_500_000);
        catchUp.tick(0, new int[0], false);
        assertThat(pacer.rate()).as("every peer gone").isZero();

        UploadPacer other = new UploadPacer(time.ticker());
        CatchUp off = new CatchUp(other, time.ticker(), 1, PIECES, "node");
        for (int t = 0; t < 30; t++) {
            time.advance(Duration.ofMillis(100));
            other.delayNanos(500_000);
            off.tick(0, new int[] {200, 200}, false);
        }
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
