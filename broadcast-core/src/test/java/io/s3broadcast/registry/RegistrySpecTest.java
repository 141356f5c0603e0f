package io.s3broadcast.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RegistrySpecTest {

    @Test
    void staticList() {
        RegistrySpec spec = RegistrySpec.parse("static:10.0.0.1:7000, node-b.example:7001,[::1]:7002");
        assertThat(spec).isEqualTo(new RegistrySpec.Static(List.of(
                new NodeInfo("10.0.0.1:7000", "10.0.0.1", 7000),
                new NodeInfo("node-b.example:7001", "node-b.example", 7001),
                new NodeInfo("::1:7002", "::1", 7002))));
        assertThat(spec.scheme()).isEqualTo("static");
        assertThat(spec).hasToString("static:10.0.0.1:7000,node-b.example:7001,[::1]:7002");
    }

    @Test
    void bareStaticMeansFromTheSystemProperty() {
        assertThat(RegistrySpec.parse("static:")).isEqualTo(new RegistrySpec.Static(List.of()));
    }

    @ParameterizedTest
    @CsvSource({
        "s3://my-bucket/registry/nodes, my-bucket, registry/nodes",
        "s3://my-bucket/registry/nodes/, my-bucket, registry/nodes",
        "S3://my-bucket/p, my-bucket, p",
        "s3://my-bucket, my-bucket, ''",
        "s3://my-bucket/, my-bucket, ''",
    })
    void s3Prefix(String text, String bucket, String prefix) {
        RegistrySpec spec = RegistrySpec.parse(text);
        assertThat(spec).isEqualTo(new RegistrySpec.S3Prefix(bucket, prefix));
        assertThat(spec.scheme()).isEqualTo("s3");
    }

    @ParameterizedTest
    @CsvSource({
        "zk://zk1:2181/s3b, zk1:2181, /s3b",
        "'zk://zk1:2181,zk2:2182,zk3/a/b/', 'zk1:2181,zk2:2182,zk3:2181', /a/b",
        "zk://[::1]:2181/x, [::1]:2181, /x",
        "zk://localhost, localhost:2181, /s3-broadcast",
        "zk://localhost:2181/, localhost:2181, /s3-broadcast",
    })
    void zooKeeper(String text, String connect, String path) {
        RegistrySpec spec = RegistrySpec.parse(text);
        assertThat(spec).isEqualTo(new RegistrySpec.ZooKeeper(connect, path));
        assertThat(spec.scheme()).isEqualTo("zk");
        assertThat(RegistrySpec.parse(spec.toString())).isEqualTo(spec);
    }

    @Test
    void otherSchemesAreLeftToProviders() {
        RegistrySpec spec = RegistrySpec.parse("consul://agent:8500/s3b");
        assertThat(spec).isEqualTo(new RegistrySpec.Other("consul", "agent:8500/s3b"));
        assertThat(spec).hasToString("consul://agent:8500/s3b");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "''|has no scheme",
        "localhost:2181|it has no scheme (is this a host:port?",
        "/var/nodes|has no scheme",
        "static:h1:1,h2|'h2' has no port",
        "static:h1:1,,h2:2|empty host:port",
        "static:h1:99999|'h1:99999' is not host:port",
        "static:h1:1,h1:1|listed twice",
        "static:::1:7000|IPv6 literals go in brackets",
        "s3:bucket/p|must be followed by '//'",
        "s3:///prefix|the bucket is missing",
        "s3://bad bucket/p|is not a bucket name",
        "s3://b//p|empty path segment",
        "zk:///path|no ZooKeeper server",
        "zk://h:notaport/p|is not host:port",
        "zk://h:2181/a//b|empty, '.' or '..' segment",
        "zk://h:2181/a/../b|empty, '.' or '..' segment",
        "1zk://h/p|is not a scheme",
    })
    void errorsNameTheSpecTheProblemAndTheAcceptedForms(String text, String problem) {
        assertThatThrownBy(() -> RegistrySpec.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad registry spec '" + text + "'")
                .hasMessageContaining(problem)
                .hasMessageContaining(RegistrySpec.ACCEPTED_FORMS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"zk://h/p", "s3://b/p"})
    void openingWithoutTheModuleNamesIt(String text) {
        RegistryConfig config = RegistryConfig.builder(GroupId.of("b", "k", "e")).build();
        assertThatThrownBy(() -> NodeRegistry.open(text, config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no registry provider for scheme")
                .hasMessageContaining("[static]")
                .hasMessageContaining("broadcast-zookeeper");
    }

    @Test
    void openFindsTheStaticProvider() {
        RegistryConfig config = RegistryConfig.builder(GroupId.of("b", "k", "e")).build();
        try (NodeRegistry registry = NodeRegistry.open("static:h1:1,h2:2", config)) {
            assertThat(registry).isInstanceOf(StaticRegistry.class);
            registry.start();
            assertThat(registry.members()).extracting(NodeInfo::nodeId).containsExactly("h1:1", "h2:2");
        }
    }
}
