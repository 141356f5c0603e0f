package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.Strategy;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigSourceTest {

    @Test
    void propertyWinsOverEnvironment() {
        ConfigSource c = new ConfigSource(Map.of("s3broadcast.connections", "4"),
                Map.of("S3BROADCAST_CONNECTIONS", "9", "S3BROADCAST_RANGE_SIZE", "16MiB"));
        assertThat(c.positiveInt("connections")).contains(4);
        assertThat(c.size("rangeSize")).contains(16L << 20);
        assertThat(c.string("endpoint")).isEmpty();
    }

    @Test
    void sizesAndDurations() {
        assertThat(ConfigSource.parseSize("123")).isEqualTo(123);
        assertThat(ConfigSource.parseSize("8MiB")).isEqualTo(8L << 20);
        assertThat(ConfigSource.parseSize("8m")).isEqualTo(8L << 20);
        assertThat(ConfigSource.parseSize("2 GB")).isEqualTo(2L << 30);
        assertThat(ConfigSource.parseSize("512KiB")).isEqualTo(512L << 10);
        assertThat(ConfigSource.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(ConfigSource.parseDuration("30")).isEqualTo(Duration.ofSeconds(30));
        assertThat(ConfigSource.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(ConfigSource.parseDuration("PT1S")).isEqualTo(Duration.ofSeconds(1));
        assertThat(ConfigSource.envName("stallTimeout")).isEqualTo("S3BROADCAST_STALL_TIMEOUT");
    }

    @Test
    void badValuesNameThePropertyAndTheForm() {
        ConfigSource c = new ConfigSource(Map.of("s3broadcast.rangeSize", "lots", "s3broadcast.connections", "-2"), Map.of());
        assertThatThrownBy(() -> c.size("rangeSize"))
                .hasMessageContaining("'lots'").hasMessageContaining("s3broadcast.rangeSize")
                .hasMessageContaining("S3BROADCAST_RANGE_SIZE").hasMessageContaining("8MiB");
        assertThatThrownBy(() -> c.positiveInt("connections")).hasMessageContaining("positive whole number");
    }

    @Test
    void builderValuesWinAndDefaultsFillTheRest() {
        ConfigSource c = new ConfigSource(Map.of("s3broadcast.connections", "4", "s3broadcast.endpoint", "http://127.0.0.1:1"),
                Map.of());
        BroadcastBuilder b = new BroadcastBuilder().config(c);
        b.connections(32);
        Settings s = Settings.resolve(b);
        assertThat(s.source().connections()).isEqualTo(32);
        assertThat(s.source().pathStyle()).as("path style is on with a custom endpoint").isTrue();
        assertThat(s.source().rangeSize()).isEqualTo(Settings.DEFAULT_RANGE_SIZE);
        assertThat(s.strategy()).isEqualTo(Strategy.FLAT_TREE);
        assertThat(s.destinationDirectory()).isAbsolute();
    }

    @Test
    void aRegistryMakesOverlapTheDefaultStrategy() {
        BroadcastBuilder alone = new BroadcastBuilder().config(new ConfigSource(Map.of(), Map.of()));
        assertThat(Settings.resolve(alone).strategy()).isEqualTo(Strategy.FLAT_TREE);
        BroadcastBuilder cluster = new BroadcastBuilder()
                .config(new ConfigSource(Map.of(), Map.of("S3BROADCAST_REGISTRY", "static:10.0.0.1:7000",
                        "S3BROADCAST_SECRET", "0123456789abcdef0123")));
        assertThat(Settings.resolve(cluster).strategy()).isEqualTo(Strategy.OVERLAP);
        assertThat(Settings.resolve(cluster).cluster().registry()).isEqualTo("static:10.0.0.1:7000");
        cluster.strategy(Strategy.NON_STEAL);
        assertThat(Settings.resolve(cluster).strategy()).isEqualTo(Strategy.NON_STEAL);
    }

    @Test
    void connectionTuningIsAdaptiveAndHedgingOffUnlessSetOtherwise() {
        var share = io.s3broadcast.spi.cluster.WorkSizing.Share.of(8, 1 << 20, 8);
        var reads = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(Map.of(), Map.of())))
                .sizing().size(share).reads();
        assertThat(reads.tuning()).isSameAs(io.s3broadcast.spi.ConnectionTuning.hillClimbing());
        assertThat(reads.hedge()).isFalse();
        var set = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.connectionTuning", "fixed", "s3broadcast.hedge", "true"), Map.of())))
                .sizing().size(share).reads();
        assertThat(set.tuning()).isSameAs(io.s3broadcast.spi.ConnectionTuning.fixed());
        assertThat(set.hedge()).isTrue();
        BroadcastBuilder wrong = new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.connectionTuning", "greedy"), Map.of()));
        assertThatThrownBy(() -> Settings.resolve(wrong)).hasMessageContaining("greedy").hasMessageContaining("adaptive");
    }

    @Test
    void theCatchUpShareIsAFractionDefaultingToNineTenths() {
        assertThat(Settings.resolve(new BroadcastBuilder().config(new ConfigSource(Map.of(), Map.of()))).cluster()
                .catchUpShare()).isEqualTo(0.9);
        assertThat(Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.catchUpShare", "1"), Map.of()))).cluster().catchUpShare()).isEqualTo(1.0);
        BroadcastBuilder zero = new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.catchUpShare", "0"), Map.of()));
        assertThatThrownBy(() -> Settings.resolve(zero)).hasMessageContaining("s3broadcast.catchUpShare")
                .hasMessageContaining("a fraction in (0, 1], 1 for no pacing");
    }

    @Test
    void theHttpClientIsAutoUnlessSet() {
        assertThat(Settings.resolve(new BroadcastBuilder().config(new ConfigSource(Map.of(), Map.of()))).source()
                .httpClient()).isEqualTo("auto");
        assertThat(Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.httpClient", "Netty"), Map.of()))).source().httpClient()).isEqualTo("netty");
    }

    @Test
    void unknownStrategyAndHttpClientAreClear() {
        BroadcastBuilder b = new BroadcastBuilder().config(new ConfigSource(Map.of("s3broadcast.strategy", "gossip"), Map.of()));
        assertThatThrownBy(() -> Settings.resolve(b)).hasMessageContaining("gossip").hasMessageContaining("flat-tree");
        BroadcastBuilder b2 = new BroadcastBuilder().config(new ConfigSource(Map.of(), Map.of())).httpClient("apache");
        assertThatThrownBy(() -> Settings.resolve(b2)).hasMessageContaining("auto, netty or crt");
    }

    @Test
    void aStaticRegistryWithoutASecretRefusesUnlessInsecure() {
        Map<String, String> env = Map.of("S3BROADCAST_REGISTRY", "static:10.0.0.1:7000");
        BroadcastBuilder none = new BroadcastBuilder().config(new ConfigSource(Map.of(), env));
        assertThatThrownBy(() -> Settings.resolve(none)).hasMessageContaining("static registry cannot hold a group secret")
                .hasMessageContaining("S3BROADCAST_SECRET").hasMessageContaining("--insecure");
        BroadcastBuilder insecure = new BroadcastBuilder().config(new ConfigSource(Map.of(), env)).insecure();
        assertThat(Settings.resolve(insecure).cluster().security().insecure()).isTrue();
        BroadcastBuilder byProperty = new BroadcastBuilder().config(new ConfigSource(Map.of("s3broadcast.insecure", "true"),
                env));
        assertThat(Settings.resolve(byProperty).cluster().security().insecure()).isTrue();
        BroadcastBuilder secret = new BroadcastBuilder().config(new ConfigSource(Map.of(), env)).secret("a-secret-of-16-bytes");
        assertThat(Settings.resolve(secret).cluster().security().secret()).isEqualTo(
                "a-secret-of-16-bytes".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(Settings.resolve(secret).cluster().security().toString()).doesNotContain("a-secret");
    }

    @Test
    void aShortSecretOrASecretWithInsecureIsAnError() {
        BroadcastBuilder shortOne = new BroadcastBuilder().config(new ConfigSource(Map.of(), Map.of())).secret("short");
        assertThatThrownBy(() -> Settings.resolve(shortOne)).hasMessageContaining("at least 16");
        BroadcastBuilder both = new BroadcastBuilder().config(new ConfigSource(Map.of(), Map.of()))
                .secret("a-secret-of-16-bytes").insecure();
        assertThatThrownBy(() -> Settings.resolve(both)).hasMessageContaining("drop one");
    }

    @Test
    void anS3OrZooKeeperRegistryMayHoldTheSecretAndLimitsHaveDefaults() {
        BroadcastBuilder b = new BroadcastBuilder().config(new ConfigSource(Map.of("s3broadcast.handshakeTimeout", "3s"),
                Map.of("S3BROADCAST_REGISTRY", "s3://bucket/prefix")));
        Settings s = Settings.resolve(b);
        assertThat(s.cluster().security().secret()).isNull();
        assertThat(s.cluster().security().insecure()).isFalse();
        assertThat(s.cluster().limits().handshakeTimeout()).isEqualTo(java.time.Duration.ofSeconds(3));
        assertThat(s.cluster().limits().maxPendingConnections()).isEqualTo(64);
        assertThat(s.cluster().limits().requestTimeout()).isEqualTo(java.time.Duration.ofSeconds(30));
    }

    @Test
    void phaseTwoPoliciesDefaultToCooperativeAndFlipByProperty() {
        Settings defaults = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(Map.of(), Map.of())));
        assertThat(defaults.cluster().chokePolicy()).isEqualTo("cooperative");
        assertThat(defaults.cluster().unchokeSlots()).isEqualTo(19);
        assertThat(defaults.cluster().requestQueueTime()).isEqualTo(java.time.Duration.ofSeconds(1));
        assertThat(defaults.cluster().maxRequestsPerPeer()).isEqualTo(8);

        Settings tft = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(
                Map.of("s3broadcast.chokePolicy", "Tit-For-Tat", "s3broadcast.requestQueueTime", "0"), Map.of())));
        assertThat(tft.cluster().chokePolicy()).isEqualTo("tit-for-tat");
        assertThat(tft.cluster().unchokeSlots()).isEqualTo(4);
        assertThat(tft.cluster().requestQueueTime()).isZero();

        Settings slots = Settings.resolve(new BroadcastBuilder().config(new ConfigSource(Map.of(),
                Map.of("S3BROADCAST_CHOKE_POLICY", "cooperative", "S3BROADCAST_UNCHOKE_SLOTS", "7"))));
        assertThat(slots.cluster().unchokeSlots()).isEqualTo(7);

        BroadcastBuilder bad = new BroadcastBuilder().config(new ConfigSource(Map.of("s3broadcast.chokePolicy", "fair"),
                Map.of()));
        assertThatThrownBy(() -> Settings.resolve(bad)).hasMessageContaining("s3broadcast.chokePolicy")
                .hasMessageContaining("cooperative or tit-for-tat");
    }
}
