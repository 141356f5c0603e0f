package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What a new GET may expect, from what the fetch's reads measured; times are ticker nanos the test gives. */
class ReadRatesTest {

    final ReadRates rates = new ReadRates();

    static long ms(long millis) {
        return millis * 1_000_000L;
    }

    /** A read that started at {@code startNanos}, had its first byte at {@code firstByteNanos} (-1: none). */
    record Read(long startNanos, long firstByteNanos, long received) implements ReadProgress {
        @Override
        public long position() {
            return received;
        }

        @Override
        public long endByte() {
            return Long.MAX_VALUE;
        }
    }

    @Test
    void beforeAnyReadANewGetIsExpectedAtNoKnownRateAfterTheDefaultWait() {
        assertThat(rates.newReadRate(List.of(), ms(1_000))).isZero();
        assertThat(rates.firstByteSeconds()).isEqualTo(ReadRates.DEFAULT_FIRST_BYTE_SECONDS);
    }

    @Test
    void aFinishedReadGivesItsRateSinceItsFirstByteAndItsWaitForIt() {
        // First byte 30 ms after the start, then 1 MB in one second.
        rates.finished(new Read(0, ms(30), 1_000_000), ms(1_030));
        assertThat(rates.newReadRate(List.of(), ms(5_000))).isCloseTo(1e6, within(1e-6));
        assertThat(rates.firstByteSeconds()).isCloseTo(0.03, within(1e-12));
    }

    @Test
    void aNewGetIsExpectedAtTheMeanOfTheRatesAndWaitsReadsHad() {
        rates.finished(new Read(0, ms(20), 1_000_000), ms(1_020));
        rates.finished(new Read(ms(100), ms(140), 3_000_000), ms(1_140));
        assertThat(rates.newReadRate(List.of(), ms(2_000))).isCloseTo(2e6, within(1e-6));
        assertThat(rates.firstByteSeconds()).isCloseTo(0.03, within(1e-12));
    }

    @Test
    void aReadTooShortToMeasureGivesItsWaitButNotItsRate() {
        rates.finished(new Read(0, ms(10), 50_000), ms(60));
        assertThat(rates.newReadRate(List.of(), ms(100))).isZero();
        assertThat(rates.firstByteSeconds()).isCloseTo(0.01, within(1e-12));
    }

    @Test
    void aReadThatHadNoByteTellsNothing() {
        rates.finished(new Read(0, -1, 0), ms(3_000));
        assertThat(rates.newReadRate(List.of(), ms(3_000))).isZero();
        assertThat(rates.firstByteSeconds()).isEqualTo(ReadRates.DEFAULT_FIRST_BYTE_SECONDS);
    }

    @Test
    void readsInFlightCountOnceMeasuredLongEnough() {
        rates.finished(new Read(0, ms(10), 4_000_000), ms(1_010));
        Read young = new Read(ms(900), ms(950), 1_000);
        Read old = new Read(0, ms(500), 1_000_000);
        Read silent = new Read(ms(500), -1, 0);
        // At 1 s the young read has been measured for 50 ms: only the finished one (4 MB/s) and the old one
        // (1 MB in 0.5 s) count.
        assertThat(rates.newReadRate(List.of(young, old, silent), ms(1_000))).isCloseTo(3e6, within(1e-6));
        // At 1.05 s the young one counts too: 1 KB in 0.1 s.
        double oldRate = 1e6 / 0.55;
        assertThat(rates.newReadRate(List.of(young, old, silent), ms(1_050)))
                .isCloseTo((4e6 + oldRate + 1e4) / 3, within(1e-6));
        // Reads in flight are not remembered.
        assertThat(rates.newReadRate(List.of(), ms(1_050))).isCloseTo(4e6, within(1e-6));
    }
}
