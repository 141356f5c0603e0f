package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every setting is checked when the broadcast is built, with a message naming the setting and the fix. */
class BuildValidationTest {

    private static BroadcastBuilder builder(Map<String, String> properties) {
        return new BroadcastBuilder().config(new ConfigSource(properties, Map.of()));
    }

    @Test
    void pieceSizeOutsideItsRangeFailsNamingTheRange() {
        assertThatThrownBy(() -> new BroadcastBuilder().pieceSize(100))
                .hasMessageContaining("pieceSize 100").hasMessageContaining("16KiB").hasMessageContaining("64MiB");
        assertThatThrownBy(() -> Settings.resolve(builder(Map.of("s3broadcast.pieceSize", "1GiB"))))
                .hasMessageContaining("pieceSize").hasMessageContaining("s3broadcast.pieceSize");
        assertThat(Settings.resolve(builder(Map.of("s3broadcast.pieceSize", "32KiB"))).configuredPieceSize()).isEqualTo(32 << 10);
    }

    @Test
    void aRegistrySpecThatDoesNotParseFailsAtBuild() {
        assertThatThrownBy(() -> Settings.resolve(builder(Map.of()).registry("zk1:2181")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("registry")
                .hasMessageContaining("static:host:port");
    }

    @Test
    void aRegistryWhoseModuleIsMissingNamesTheArtifact() {
        // build() checks the provider before anything else (core alone has only the static registry).
        assertThatThrownBy(() -> builder(Map.of()).registry("zk://zk1/s3b").build())
                .hasMessageContaining("io.s3broadcast:broadcast-zookeeper");
        assertThatThrownBy(() -> builder(Map.of("s3broadcast.registry", "s3://b/p")).build())
                .hasMessageContaining("io.s3broadcast:broadcast-s3");
        assertThat(Settings.resolve(builder(Map.of()).registry("static:10.0.0.1:7000").insecure()).cluster().registry())
                .isEqualTo("static:10.0.0.1:7000");
    }

    @Test
    void aGivenClusterStrategyProviderIsKeptForTheBroadcast() {
        io.s3broadcast.spi.ClusterStrategyProvider provider = (config, client) -> null;
        assertThat(Settings.resolve(builder(Map.of()).clusterStrategy(provider)).clusterProvider()).isSameAs(provider);
        assertThat(Settings.resolve(builder(Map.of())).clusterProvider()).isNull();
    }
}
