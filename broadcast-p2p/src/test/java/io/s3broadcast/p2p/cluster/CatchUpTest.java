package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** When a node's uploads are paced so it catches up, on fake time: its uploads measured through the pacer. */
class CatchUpTest {

    private static final int PIECES = 256;
    /** Small pieces: 64 of them (6.4 MB) go in under 2 s at these rates, so the windows are 2 s long. */
    private static final long PIECE_SIZE = 100_000;
    private final ManualScheduler time = new ManualScheduler();
    private final UploadPacer pacer = new UploadPacer(time.ticker());
    private final CatchUp catchUp = new CatchUp(pacer, time.ticker(), 0.9, PIECES, PIECE_SIZE, "node");

    /**
     * {@code seconds} of 100 ms ticks, each after the uploads offered the pacer {@code bytesPerSecond} (what it
     * holds back does not go; what it lets through goes into the sockets at once).
     */
    private void upload(double seconds, long bytesPerSecond, int mine, int... peers) {
        for (int t = 0; t < seconds * 10; t++) {
            time.advance(Duration.ofMillis(100));
            if (pacer.delayNanos(bytesPerSecond / 10) == 0) {
                pacer.sent(bytesPerSecond / 10);
            }
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
    void withLargePiecesAWindowLastsUntilItCarriedSixtyFourOfThemSoPiecesFinishingTogetherDoNotReadHigh() {
        // 15 connections share a 5 MB/s link with 1 MiB pieces: each piece takes some 3 s, and counted as its last
        // byte goes, a 2 s window that sees several finish reads far over the link. Over 64 pieces that evens out.
        long mib = 1 << 20;
        double link = 5e6;
        UploadPacer two = new UploadPacer(time.ticker());
        CatchUp twoSeconds = new CatchUp(two, time.ticker(), 0.9, PIECES, PIECE_SIZE, "node");
        CatchUp sixtyFour = new CatchUp(pacer, time.ticker(), 0.9, PIECES, mib, "node");
        Random random = new Random(40);
        double[] left = new double[15]; // bytes of each connection's piece still to go
        for (int c = 0; c < left.length; c++) {
            left[c] = mib * (c + 1) / 15.0;
        }
        // 120 s in 100 ms ticks; each tick the link carries 8 of the 15 connections, in turn from a random one
        for (int t = 0; t < 1200; t++) {
            time.advance(Duration.ofMillis(100));
            int first = random.nextInt(left.length);
            for (int k = 0; k < left.length / 2 + 1; k++) {
                int c = (first + k) % left.length;
                left[c] -= link / 10 / (left.length / 2 + 1);
                if (left[c] <= 0) {
                    pacer.sent(mib);
                    two.sent(mib);
                    left[c] += mib;
                }
            }
            twoSeconds.tick(0, new int[] {10, 10}, false);
            sixtyFour.tick(0, new int[] {10, 10}, false);
        }
        assertThat(twoSeconds.peakBytesPerSecond()).as("2 s windows").isGreaterThan(1.3 * link);
        assertThat(sixtyFour.peakBytesPerSecond()).as("64-piece windows").isBetween(link, 1.1 * link);
    }

    @Test
    void uploadsTooSlowForSixtyFourPiecesAreMeasuredOverThirtySeconds() {
        long mib = 1 << 20;
        CatchUp big = new CatchUp(pacer, time.ticker(), 0.9, PIECES, mib, "node");
        for (int t = 1; t <= 400; t++) { // a piece a second: 64 pieces would take 64 s
            time.advance(Duration.ofMillis(100));
            if (t % 10 == 0) {
                pacer.sent(mib);
            }
            big.tick(0, new int[] {10, 10}, false);
            if (t == 290) {
                assertThat(big.peakBytesPerSecond()).as("29 s").isZero();
            }
        }
        assertThat(big.peakBytesPerSecond()).isBetween(0.99 * mib, 1.04 * mib);
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
        CatchUp off = new CatchUp(other, time.ticker(), 1, PIECES, PIECE_SIZE, "node");
        for (int t = 0; t < 30; t++) {
            time.advance(Duration.ofMillis(100));
            other.delayNanos(500_000);
            other.sent(500_000);
            off.tick(0, new int[] {200, 200}, false);
        }
        assertThat(other.rate()).isZero();
    }

    @Test
    void theShareIsAFractionAboveZeroAtMostOne() {
        assertThatThrownBy(() -> new CatchUp(pacer, time.ticker(), 0, PIECES, PIECE_SIZE, "node"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CatchUp(pacer, time.ticker(), 1.5, PIECES, PIECE_SIZE, "node"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
