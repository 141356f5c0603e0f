package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which read in flight is hedged, and where, from what the reads measured; times are ticker nanos the test gives. */
class HedgeChoiceTest {

    static final int PIECE = 1 << 20;
    static final long MIB = 1 << 20;
    static final long MIN = TailHedge.minPart(PIECE);

    final ReadRates rates = new ReadRates();
    final HedgeChoice choice = new HedgeChoice(rates, PIECE);

    static long ms(long millis) {
        return millis * 1_000_000L;
    }

    record Read(long startNanos, long firstByteNanos, long received, long position, long endByte)
            implements ReadProgress {
    }

    /** A read finished at 10 MB/s, after a 30 ms wait for its first byte. */
    void aFastReadFinished() {
        rates.finished(new Read(0, ms(30), 10_000_000, 0, 0), ms(1_030));
    }

    @Test
    void aSlowReadIsCutWhereTailHedgeSaysForANewGetAtTheMeanRate() {
        aFastReadFinished();
        // 1 MB in its second since the first byte, 4 MiB left.
        Read slow = new Read(ms(1_000), ms(1_030), 1_000_000, 1_000_000, 1_000_000 + 4 * MIB);
        HedgeChoice.Cut<Read> cut = choice.slowest(List.of(slow), ms(2_030));
        assertThat(cut).isNotNull();
        assertThat(cut.read()).isSameAs(slow);
        // A new GET is expected at the mean rate of the finished read and this one, after 30 ms.
        double fresh = (10e6 + 1e6) / 2;
        assertThat(cut.at()).isEqualTo(TailHedge.cut(1_000_000, 1_000_000 + 4 * MIB, 1e6, 1.0, fresh, 0.03, MIN))
                .isGreaterThan(1_000_000).isLessThan(1_000_000 + 4 * MIB);
    }

    @Test
    void ofTheReadsWorthCuttingTheOnePredictedToEndLastIsChosen() {
        aFastReadFinished();
        Read slow = new Read(0, ms(30), 1_000_000, 1_000_000, 1_000_000 + 4 * MIB);
        Read slower = new Read(0, ms(30), 500_000, 500_000, 500_000 + 3 * MIB);
        Read fast = new Read(0, ms(30), 10_000_000, 10_000_000, 10_000_000 + 4 * MIB);
        HedgeChoice.Cut<Read> cut = choice.slowest(List.of(slow, fast, slower), ms(1_030));
        assertThat(cut.read()).isSameAs(slower);
    }

    @Test
    void aReadAsFastAsANewOneIsLeft() {
        aFastReadFinished();
        Read fast = new Read(0, ms(30), 9_000_000, 9_000_000, 9_000_000 + 4 * MIB);
        assertThat(choice.slowest(List.of(fast), ms(1_030))).isNull();
    }

    @Test
    void aReadWithNoByteYetIsMeasuredSinceItsStartAndKeepsTheSmallestPart() {
        aFastReadFinished();
        Read silent = new Read(ms(500), -1, 0, 2 * MIB, 4 * MIB);
        Read slow = new Read(0, ms(30), 1_000_000, 1_000_000, 1_000_000 + 4 * MIB);
        // Silent for 20 ms, less than a new GET's wait: not yet judged.
        assertThat(choice.slowest(List.of(silent), ms(520))).isNull();
        // Silent for 1 s: it would never end alone, so it goes before the slow one.
        HedgeChoice.Cut<Read> cut = choice.slowest(List.of(slow, silent), ms(1_500));
        assertThat(cut.read()).isSameAs(silent);
        assertThat(cut.at()).isEqualTo(2 * MIB + MIN);
    }

    @Test
    void aFetchHedgesOnceAndOnceMoreForEveryBytesPerHedgeItRead() {
        assertThat(choice.allows(0, false)).isTrue();
        choice.took(MIB);
        assertThat(choice.allows(TailHedge.BYTES_PER_HEDGE - 1, false)).isFalse();
        assertThat(choice.allows(TailHedge.BYTES_PER_HEDGE, false)).isTrue();
        choice.took(2 * MIB);
        assertThat(choice.allows(TailHedge.BYTES_PER_HEDGE, false)).isFalse();
        assertThat(choice.tally()).isEqualTo(new HedgeChoice.Tally(2, 3 * MIB));
    }

    @Test
    void noHedgeWhileTheLinkIsBusy() {
        assertThat(choice.allows(0, true)).isFalse();
        assertThat(choice.tally()).isEqualTo(new HedgeChoice.Tally(0, 0));
    }

    @Test
    void withNoRateMeasuredNothingIsCut() {
        Read slow = new Read(0, ms(30), 1_000_000, 1_000_000, 1_000_000 + 4 * MIB);
        // Its own rate is the only one: a new GET would be no faster.
        assertThat(choice.slowest(List.of(slow), ms(1_030))).isNull();
        Read silent = new Read(0, -1, 0, 0, 4 * MIB);
        assertThat(choice.slowest(List.of(silent), ms(1_000))).isNull();
        assertThat(choice.slowest(List.of(), ms(1_000))).isNull();
    }
}
