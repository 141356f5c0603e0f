package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import org.junit.jupiter.api.Test;

/**
 * The piece size: configured wins; a cluster gets about 32 pieces per node (8 nodes when its size is not known), 256
 * KiB to 1 MiB.
 */
class PieceSizingTest {

    private static final long MIB = 1 << 20;

    @Test
    void aClusterOfKnownSizeGetsAboutThirtyTwoPiecesPerNode() {
        assertThat(PieceSizing.of(null, 64 * MIB, Strategy.OVERLAP, 4)).isEqualTo(512 << 10);
        assertThat(PieceSizing.of(null, 64 * MIB, Strategy.STEAL, 8)).isEqualTo(256 << 10);
        assertThat(PieceSizing.of(null, 96 * MIB, Strategy.NON_STEAL, 8)).isEqualTo(256 << 10); // 384 KiB, rounded down
    }

    @Test
    void staysWithinItsBounds() {
        assertThat(PieceSizing.of(null, 64 * MIB, Strategy.OVERLAP, 16)).isEqualTo(PieceSizing.MIN_COMPUTED);
        assertThat(PieceSizing.of(null, 1000, Strategy.OVERLAP, 1000)).isEqualTo(PieceSizing.MIN_COMPUTED);
        assertThat(PieceSizing.of(null, 10_000 * MIB, Strategy.OVERLAP, 8)).isEqualTo(PieceSizing.DEFAULT);
    }

    @Test
    void theFlatTreeAndAClusterOfOneKeepTheDefault() {
        assertThat(PieceSizing.of(null, 64 * MIB, Strategy.FLAT_TREE, 8)).isEqualTo(PieceSizing.DEFAULT);
        assertThat(PieceSizing.of(null, 64 * MIB, Strategy.OVERLAP, 1)).isEqualTo(PieceSizing.DEFAULT);
    }

    @Test
    void aClusterOfUnknownSizeIsSizedFromTheObjectAsForEightNodes() {
        assertThat(PieceSizing.of(null, 64 * MIB, Strategy.OVERLAP, 0))
                .isEqualTo(PieceSizing.of(null, 64 * MIB, Strategy.OVERLAP, PieceSizing.ASSUMED_NODES))
                .isEqualTo(256 << 10);
        assertThat(PieceSizing.of(null, 128 * MIB, Strategy.NON_STEAL, 0)).isEqualTo(512 << 10);
        assertThat(PieceSizing.of(null, 10_000 * MIB, Strategy.OVERLAP, 0)).isEqualTo(PieceSizing.DEFAULT);
    }

    @Test
    void aConfiguredPieceSizeWins() {
        assertThat(PieceSizing.of(4 << 20, 64 * MIB, Strategy.OVERLAP, 16)).isEqualTo(4 << 20);
    }
}
