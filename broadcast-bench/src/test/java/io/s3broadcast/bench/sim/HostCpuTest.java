package io.s3broadcast.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class HostCpuTest {

    private static final double MIB = 1 << 20;

    @Test
    void coldStartsShareTheCoresAndNeverTakeLessThanTheFixedStart() {
        HostCpu cpu = HostCpu.measured(2);
        // 8 starts of 0.5 CPU-s on 2 cores: 2 s; 2 starts fit: 0.5 s each, on a core of their own.
        assertThat(cpu.startNanos(8, 500_000_000L)).isEqualTo(2_000_000_000L);
        assertThat(cpu.startNanos(2, 0)).isEqualTo(500_000_000L);
        assertThat(cpu.startNanos(1, 0)).isEqualTo(500_000_000L);
        assertThat(cpu.startNanos(2, 700_000_000L)).isEqualTo(700_000_000L);
    }

    @Test
    void aByteTakenInCostsItselfItsReadCallsAndItsPieceAndMoreOnASlowerLink() {
        HostCpu cpu = new HostCpu(2, 0.5, 5e-3 / MIB, 100e-6, 1000, 1e-3, 0.5e-3);
        // 10 MB/s: 100 reads per 1 MB, 10 ms; 1 MiB pieces with 2 peers: 2 ms per MiB.
        double perMiB = cpu.takenIn(10_000_000, 2, 1 << 20) * MIB;
        assertThat(perMiB).isCloseTo(5e-3 + 100e-6 * 1000 * MIB / 10e6 + 2e-3, within(1e-9));
        // A link four times slower: four times the reads for the same bytes.
        double slow = cpu.takenIn(2_500_000, 2, 1 << 20) * MIB;
        assertThat(slow - perMiB).isCloseTo(3 * 100e-6 * 1000 * MIB / 10e6, within(1e-9));
        // Unlimited link: no read calls counted; pieces a quarter the size cost four times per byte.
        assertThat(cpu.takenIn(0, 2, 1 << 18) * MIB).isCloseTo(5e-3 + 8e-3, within(1e-9));
        assertThat(cpu.passedOn() * MIB).isCloseTo(5e-3, within(1e-12));
    }

    @Test
    void theMeasuredCostsAtTheFleetsN8() {
        // N = 8 at 10 MB/s, 1 MiB pieces, non-steal: 64 MiB in and about 56 MiB out after a 0.5 CPU-s start:
        // the 1.9 CPU-s per node measured after the start signal (docs/results.md, session 19).
        HostCpu cpu = HostCpu.measured(2);
        double node = cpu.startSeconds() + 64 * MIB * cpu.takenIn(10_000_000, 7, 1 << 20)
                + 56 * MIB * cpu.passedOn();
        assertThat(node).isCloseTo(1.9, within(0.1));
    }

    @Test
    void endsThatOverlapShareTheCoresAndEndsAloneTakeTheirWorkOnOneCore() {
        HostCpu cpu = HostCpu.measured(2);
        long s = 1_000_000_000L;
        // 8 ends of 0.1 CPU-s at once on 2 cores: 0.4 s each (the fleet at N = 8, 10 MB/s: 0.3-0.45 s).
        long[] together = cpu.endsNanos(new long[] {s, s, s, s, s, s, s, s}, 0.1);
        assertThat(together).containsOnly(s + 400_000_000L);
        // Ends far apart: 0.1 s each, on a core of their own; a node that never got its last piece never ends.
        assertThat(cpu.endsNanos(new long[] {s, 2 * s, -1}, 0.1)).containsExactly(s + 100_000_000L,
                2 * s + 100_000_000L, -1L);
        // Three ends 10 ms apart on 2 cores: the first two run alone on a core each, the third shares from 20 ms.
        long ms = 1_000_000L;
        long[] staggered = cpu.endsNanos(new long[] {s + 20 * ms, s, s + 10 * ms}, 0.1);
        // At 20 ms the first has 80 ms of work left, the second 90, the third 100, each at 2/3 of a core: the first
        // ends 120 ms later; then two run on a core each.
        assertThat(staggered[1]).isCloseTo(s + 140 * ms, org.assertj.core.api.Assertions.within(2L));
        assertThat(staggered[2]).isCloseTo(s + 140 * ms + 10 * ms, org.assertj.core.api.Assertions.within(2L));
        assertThat(staggered[0]).isCloseTo(s + 140 * ms + 20 * ms, org.assertj.core.api.Assertions.within(2L));
        // No work: the last piece is the end.
        assertThat(cpu.endsNanos(new long[] {s, s}, 0)).containsExactly(s, s);
    }

    @Test
    void rejectsNoCoresAndNegativeCosts() {
        assertThatThrownBy(() -> HostCpu.measured(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HostCpu(2, -1, 0, 0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
