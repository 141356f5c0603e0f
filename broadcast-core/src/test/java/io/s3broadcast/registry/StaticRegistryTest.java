package io.s3broadcast.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StaticRegistryTest {

    private static final GroupId GROUP = GroupId.of("b", "k", "e");
    private static final List<NodeInfo> LIST = ((RegistrySpec.Static) RegistrySpec.parse(
            "static:10.0.0.1:7000,10.0.0.2:7000,node-c:7000,node-c:7001")).members();

    @AfterEach
    void clearProperty() {
        System.clearProperty(StaticRegistry.MEMBERS_PROPERTY);
    }

    private static StaticRegistry registry(Set<String> localHosts) {
        return new StaticRegistry(GROUP, LIST, localHosts::contains);
    }

    @Test
    void everyListedNodeIsAMemberFromStart() {
        StaticRegistry registry = registry(Set.of());
        registry.start();
        assertThat(registry.members()).extracting(NodeInfo::nodeId)
                .containsExactly("10.0.0.1:7000", "10.0.0.2:7000", "node-c:7000", "node-c:7001");
        RecordingListener listener = new RecordingListener();
        registry.watch(listener);
        assertThat(listener.events).hasSize(4);
    }

    @Test
    void findsItselfById() {
        StaticRegistry registry = registry(Set.of());
        registry.start();
        assertThat(registry.register(new NodeInfo("node-c:7001", "0.0.0.0", 9999))).isEqualTo(LIST.get(3));
        assertThat(registry.self()).contains(LIST.get(3));
    }

    @Test
    void findsItselfByHostAndPort() {
        StaticRegistry registry = registry(Set.of());
        registry.start();
        assertThat(registry.register(new NodeInfo("some-uuid", "NODE-C", 7000))).isEqualTo(LIST.get(2));
    }

    @Test
    void findsItselfByPortOnALocalAddress() {
        StaticRegistry registry = registry(Set.of("10.0.0.2"));
        registry.start();
        assertThat(registry.register(new NodeInfo("some-uuid", "192.168.1.9", 7000))).isEqualTo(LIST.get(1));
    }

    @Test
    void severalLocalMatchesAreAnError() {
        StaticRegistry registry = registry(Set.of("10.0.0.1", "10.0.0.2"));
        registry.start();
        assertThatThrownBy(() -> registry.register(new NodeInfo("x", "0.0.0.0", 7000)))
                .isInstanceOf(RegistryException.class).hasMessageContaining("several entries");
    }

    @Test
    void anUnlistedNodeIsAnErrorThatShowsTheList() {
        StaticRegistry registry = registry(Set.of("10.0.0.1"));
        registry.start();
        assertThatThrownBy(() -> registry.register(new NodeInfo("x", "10.9.9.9", 7500)))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("x@10.9.9.9:7500")
                .hasMessageContaining("10.0.0.1:7000");
    }

    @Test
    void leavingDropsThisNodeAndRegisteringBringsItBack() {
        StaticRegistry registry = registry(Set.of());
        registry.start();
        registry.register(LIST.get(0));
        RecordingListener listener = new RecordingListener();
        registry.watch(listener);
        registry.leave();
        assertThat(registry.members()).hasSize(3).doesNotContain(LIST.get(0));
        registry.register(LIST.get(0));
        assertThat(registry.members()).hasSize(4);
        assertThat(listener.events).endsWith("-10.0.0.1:7000", "+10.0.0.1:7000");
        assertThat(registry.configured()).isEqualTo(LIST);
    }

    @Test
    void fromSystemProperty() {
        System.setProperty(StaticRegistry.MEMBERS_PROPERTY, "h1:1, h2:2");
        StaticRegistry registry = StaticRegistry.fromSystemProperties(GROUP);
        assertThat(registry.configured()).extracting(NodeInfo::address).containsExactly("h1:1", "h2:2");
    }

    @Test
    void bareStaticSpecReadsTheSystemProperty() {
        System.setProperty(StaticRegistry.MEMBERS_PROPERTY, "static:h1:1");
        try (NodeRegistry registry = NodeRegistry.open("static:", RegistryConfig.builder(GROUP).build())) {
            registry.start();
            assertThat(registry.members()).extracting(NodeInfo::address).containsExactly("h1:1");
        }
    }

    @Test
    void missingPropertyIsExplained() {
        assertThatThrownBy(() -> StaticRegistry.fromSystemProperties(GROUP))
                .hasMessageContaining(StaticRegistry.MEMBERS_PROPERTY);
    }

    @Test
    void loopbackIsAnAddressOfThisMachine() {
        assertThat(StaticRegistry.isAddressOfThisMachine("127.0.0.1")).isTrue();
        assertThat(StaticRegistry.isAddressOfThisMachine("192.0.2.77")).isFalse();
    }
}
