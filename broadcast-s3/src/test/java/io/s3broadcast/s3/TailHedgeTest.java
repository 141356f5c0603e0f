package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a range in flight is hedged and where it is cut. */
class TailHedgeTest {

    static final long MIB = 1 << 20;
    static final long MIN = TailHedge.minPart(1 << 20);

    @Test
    void aSlowDrawIsCutWhereBothEndTogether() {
        // 4 MiB left at 1 MB/s; a new GET is expected at 10 MB/s after 30 ms.
        long cut = TailHedge.cut(0, 4 * MIB, 1e6, 1.0, 10e6, 0.03, MIN);
        assertThat(cut).isPositive();
        double slow = cut / 1e6;
        double fresh = 0.03 + (4 * MIB - cut) / 10e6;
        assertThat(slow).isCloseTo(fresh, org.assertj.core.data.Offset.offset(0.001));
    }

    @Test
    void aRangeAsFastAsANewOneIsLeft() {
        assertThat(TailHedge.cut(0, 4 * MIB, 6e6, 1.0, 6e6, 0.03, MIN)).isEqualTo(-1);
        // Somewhat slower, not SLOWER times: left.
        assertThat(TailHedge.cut(0, 4 * MIB, 4.5e6, 1.0, 6e6, 0.03, MIN)).isEqualTo(-1);
    }

    @Test
    void aTailTooShortToGainIsLeft() {
        // 100 KiB left at half the rate: a hedge saves less than MIN_GAIN_SECONDS.
        assertThat(TailHedge.cut(0, 100 << 10, 1e6, 1.0, 10e6, 0.03, MIN)).isEqualTo(-1);
    }

    @Test
    void aRateMeasuredTooBrieflyIsNotTrusted() {
        assertThat(TailHedge.cut(0, 4 * MIB, 1e6, 0.05, 10e6, 0.03, MIN)).isEqualTo(-1);
        assertThat(TailHedge.cut(0, 4 * MIB, 1e6, 1.0, 0, 0.03, MIN)).isEqualTo(-1);
    }

    @Test
    void aGetWithNoByteYetKeepsTheSmallestPart() {
        assertThat(TailHedge.cut(MIB, 2 * MIB, 0, 0.5, 10e6, 0.03, MIN)).isEqualTo(MIB + MIN);
    }
}
