package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import io.s3broadcast.registry.StaticRegistry;
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

    @Test
    void aStaticRegistrysListCountsAsTheNodesExpected() {
        StringBuilder sixteen = new StringBuilder("static:");
        for (int i = 0; i < 16; i++) {
            sixteen.append(i == 0 ? "" : ",").append("10.0.0.").append(i + 1).append(":7070");
        }
        Settings listed = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.registry", sixteen.toString(), "s3broadcast.insecure", "true"), Map.of())));
        assertThat(listed.knownNodes()).isEqualTo(16);
        assertThat(listed.pieceSize(256 * MIB, Strategy.OVERLAP)).isEqualTo(512 << 10);
        Settings expecting = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.registry", sixteen.toString(), "s3broadcast.insecure", "true",
                        "s3broadcast.expectNodes", "4"), Map.of())));
        assertThat(expecting.knownNodes()).as("expectNodes wins").isEqualTo(4);
    }

    @Test
    void aBareStaticRegistryCountsTheListInItsSystemProperty() {
        String before = System.getProperty(StaticRegistry.MEMBERS_PROPERTY);
        System.setProperty(StaticRegistry.MEMBERS_PROPERTY, "10.0.0.1:7070,10.0.0.2:7070,10.0.0.3:7070");
        try {
            Settings bare = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                    Map.of("s3broadcast.registry", "static:", "s3broadcast.insecure", "true"), Map.of())));
            assertThat(bare.knownNodes()).isEqualTo(3);
        } finally {
            if (before == null) {
                System.clearProperty(StaticRegistry.MEMBERS_PROPERTY);
            } else {
                System.setProperty(StaticRegistry.MEMBERS_PROPERTY, before);
            }
        }
    }

    @Test
    void aRegistryThatNodesJoinLeavesTheSizeUnknown() {
        Settings joined = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.registry", "zk://127.0.0.1:2181/s3b"), Map.of())));
        assertThat(joined.knownNodes()).isZero();
        assertThat(joined.pieceSize(256 * MIB, Strategy.OVERLAP)).as("as for 8 nodes").isEqualTo(1 << 20);
    }
}
