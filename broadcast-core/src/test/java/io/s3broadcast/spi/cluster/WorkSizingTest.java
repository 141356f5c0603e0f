package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.spi.cluster.WorkSizing.Share;
import io.s3broadcast.spi.cluster.WorkSizing.Sizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WorkSizingTest {

    private static final int MIB = 1 << 20;

    /** Pieces of {@code mib} MiB of 1 MiB pieces shared by {@code nodes}: the first (smallest) share. */
    private static Share share(long objectMib, int nodes) {
        int pieces = (int) objectMib;
        return Share.of(Shares.end(pieces, nodes, 0), MIB, nodes);
    }

    @ParameterizedTest(name = "{0} MiB over {1} nodes, {2} connections: {3} x {4}-piece ranges, works of {4}")
    @CsvSource({
        // object MiB, nodes, max connections, connections used, range pieces
        "64, 8, 16, 2, 1",       // the fleet's 8 MiB share: eight 1 MiB works, two connections, six left to steal
        "64, 4, 16, 4, 1",       // 16 MiB share: sixteen works over four connections
        "64, 4, 4, 4, 1",
        "64, 1, 16, 16, 4",      // a single node's 64 MiB: all sixteen connections, one 4 MiB range each
        "1024, 1, 16, 16, 32",   // 1 GiB alone: 32 ranges of 32 MiB
        "10240, 1, 16, 16, 32",  // 10 GiB alone: capped at 32 MiB, 320 GETs
        "2048, 8, 4, 4, 16",     // 256 MiB share, four connections: 16 ranges of 16 MiB
        "32, 16, 16, 2, 1",      // 2 MiB share: two 1 MiB ranges
        "1, 1, 16, 1, 1",        // one piece: one connection
    })
    void sizesFromShareNodesAndConnections(long objectMib, int nodes, int maxConnections, int connections, int range) {
        Sizing s = WorkSizing.computed(maxConnections).size(share(objectMib, nodes));
        assertThat(s.connections()).isEqualTo(connections);
        assertThat(s.rangePieces()).isEqualTo(range);
        assertThat(s.workPieces()).isEqualTo(range);
        assertThat(s.reads().rangeBytes()).isEqualTo((long) range * MIB);
    }

    @Test
    void everyConnectionHasSeveralUnitsOfItsShare() {
        for (int nodes : new int[] {1, 2, 4, 8, 16, 32}) {
            for (int conns : new int[] {1, 2, 4, 16, 64}) {
                for (long mib : new long[] {16, 64, 256, 1024}) {
                    Share sh = share(mib, nodes);
                    if (sh.sharePieces() == 0) {
                        continue;
                    }
                    Sizing s = WorkSizing.computed(conns).size(sh);
                    long ranges = (sh.sharePieces() + s.rangePieces() - 1) / s.rangePieces();
                    assertThat(s.connections()).isBetween(1, conns);
                    assertThat((long) s.connections()).isLessThanOrEqualTo(ranges);
                    if (nodes > 1 && ranges >= 8 && s.rangeBytes() < ComputedWorkSizing.MAX_RANGE_BYTES) {
                        // Sized down to leave units to steal: at least two ranges per connection.
                        assertThat(ranges).as("%d MiB, %d nodes, %d conns", mib, nodes, conns)
                                .isGreaterThanOrEqualTo(2L * s.connections());
                    }
                }
            }
        }
    }

    @Test
    void requestCountIsBoundedForHugeObjectsOfSmallPieces() {
        // 100 GiB of 32 KiB pieces on one node: not three million GETs.
        int pieces = (int) ((100L << 30) / (32 << 10));
        Sizing s = WorkSizing.computed(16).size(Share.of(pieces, 32 << 10, 1));
        long ranges = (pieces + (long) s.rangePieces() - 1) / s.rangePieces();
        assertThat(ranges).isLessThanOrEqualTo(ComputedWorkSizing.MAX_RANGES);
        // Past 32 GiB the request bound wins over the 32 MiB cap: 100 MiB ranges.
        assertThat(s.rangeBytes()).isEqualTo(100L << 20);
    }

    @Test
    void smallPiecesStillMakeRangesOfAtLeastAMebibyte() {
        Sizing s = WorkSizing.computed(16).size(Share.of(256, 32 << 10, 8)); // an 8 MiB share of 32 KiB pieces
        assertThat(s.rangeBytes()).isEqualTo(ComputedWorkSizing.MIN_RANGE_BYTES);
        assertThat(s.rangePieces()).isEqualTo(32);
    }

    @Test
    void aMeasuredRateShortensRangesSoASlowConnectionHoldsLittle() {
        Share unknown = Share.of(1024, MIB, 1);
        Share slow = new Share(1024, MIB, 1, 2_000_000); // 2 MB/s per connection: 2 s is under 4 MiB
        assertThat(WorkSizing.computed(16).size(unknown).rangePieces()).isEqualTo(32);
        assertThat(WorkSizing.computed(16).size(slow).rangePieces()).isEqualTo(3);
        Share crawl = new Share(1024, MIB, 1, 1_000); // never below the smallest range
        assertThat(WorkSizing.computed(16).size(crawl).rangePieces()).isEqualTo(1);
    }

    @Test
    void explicitRangeSizeWinsAndUsesEveryConfiguredConnection() {
        WorkSizing w = WorkSizing.withOverrides(WorkSizing.computed(16), 16, 32L * MIB, null);
        Sizing s = w.size(share(64, 1));
        assertThat(s.rangePieces()).isEqualTo(32);
        assertThat(s.workPieces()).isEqualTo(32);
        assertThat(s.connections()).isEqualTo(16);
    }

    @Test
    void explicitWorkSizeWinsOverTheComputedOne() {
        WorkSizing w = WorkSizing.withOverrides(WorkSizing.computed(16), 16, null, 2);
        Sizing s = w.size(share(64, 4));
        assertThat(s.workPieces()).isEqualTo(2);
        assertThat(s.rangePieces()).isEqualTo(1);
        assertThat(s.connections()).isEqualTo(4);
        WorkSizing both = WorkSizing.withOverrides(WorkSizing.computed(16), 8, 4L * MIB, 3);
        assertThat(both.size(share(64, 4))).isEqualTo(new Sizing(8, 4, 3, MIB));
    }

    @Test
    void theRunTimeCapIsTheNodesPartOfTheFleetBudgetAndLeavesHalfTheRangesToSteal() {
        WorkSizing w = WorkSizing.computed(16, io.s3broadcast.spi.ConnectionTuning.hillClimbing(), true);
        // Alone: every configured connection; 4 nodes: 64 / 4 = 16, within half the share's 16 ranges: 8;
        // 8 nodes: 64 / 8 = 8, within half the share's 8 ranges: 4; 16 nodes: 4 ranges, half is 2, the computed count.
        assertThat(w.size(share(64, 1)).maxConnections()).isEqualTo(16);
        assertThat(w.size(share(64, 4)).maxConnections()).isEqualTo(8);
        assertThat(w.size(share(64, 8)).maxConnections()).isEqualTo(4);
        assertThat(w.size(share(64, 8)).connections()).isEqualTo(2);
        assertThat(w.size(share(64, 16)).maxConnections()).isEqualTo(2);
        assertThat(w.size(share(64, 16)).connections()).isEqualTo(2);
        // The fleet's part binds: 160 MiB over 8 nodes, 20 ranges of 1 MiB, 5 connections, half is 10, 64 / 8 = 8.
        assertThat(w.size(share(160, 8)).connections()).isEqualTo(5);
        assertThat(w.size(share(160, 8)).maxConnections()).isEqualTo(8);
        assertThat(w.size(share(512, 64)).maxConnections()).isEqualTo(w.size(share(512, 64)).connections());
        assertThat(w.size(share(8, 8)).reads().tuning()).isSameAs(io.s3broadcast.spi.ConnectionTuning.hillClimbing());
        assertThat(w.size(share(8, 8)).reads().hedge()).isTrue();
    }

    @Test
    void noOverridesIsTheBasePolicy() {
        WorkSizing base = WorkSizing.computed(4);
        assertThat(WorkSizing.withOverrides(base, 4, null, null)).isSameAs(base);
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> WorkSizing.computed(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Share.of(-1, MIB, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Share(1, MIB, 1, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WorkSizing.withOverrides(WorkSizing.computed(1), 1, 0L, null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
