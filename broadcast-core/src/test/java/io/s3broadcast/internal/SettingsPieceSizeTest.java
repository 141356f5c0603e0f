package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The piece size a fetch gets from its settings: a configured one wins, else PieceSizing computes it. */
class SettingsPieceSizeTest {

    private static final long MIB = 1 << 20;

    @Test
    void aConfiguredPieceSizeWinsOverTheComputedOne() {
        Settings set = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.pieceSize", "2MiB", "s3broadcast.expectNodes", "8"), Map.of())));
        assertThat(set.pieceSize(64 * MIB, Strategy.OVERLAP)).isEqualTo(2 << 20);
    }

    @Test
    void aClusterExpectingEightNodesGets256KiBPiecesOf64MiB() {
        Settings computed = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.expectNodes", "8"), Map.of())));
        assertThat(computed.pieceSize(64 * MIB, Strategy.OVERLAP)).isEqualTo(256 << 10);
        assertThat(computed.pieceSize(64 * MIB, Strategy.FLAT_TREE)).isEqualTo(1 << 20);
    }
}
