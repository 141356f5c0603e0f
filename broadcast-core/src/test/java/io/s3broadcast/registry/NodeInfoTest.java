package io.s3broadcast.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class NodeInfoTest {

    @Test
    void idFromAddressIsAValidId() {
        assertThat(NodeInfo.of("10.0.0.1", 7000).nodeId()).isEqualTo("10.0.0.1:7000");
        assertThat(NodeInfo.of("::1", 7000).nodeId()).isEqualTo("::1:7000");
        assertThat(NodeInfo.idFor(".weird host/x", 1)).isEqualTo("_weird_host_x:1");
        assertThat(NodeInfo.idFor("h".repeat(300), 65535)).hasSize(128).endsWith(":65535");
    }

    @Test
    void addressBracketsIpv6() {
        assertThat(new NodeInfo("n", "::1", 7000).address()).isEqualTo("[::1]:7000");
        assertThat(new NodeInfo("n", "host", 7000)).hasToString("n@host:7000");
    }

    @Test
    void rejectsBadIdsHostsAndPorts() {
        assertThatThrownBy(() -> new NodeInfo("a/b", "h", 1)).hasMessageContaining("a/b");
        assertThatThrownBy(() -> new NodeInfo("..", "h", 1)).hasMessageContaining("'..'");
        assertThatThrownBy(() -> new NodeInfo("", "h", 1)).hasMessageContaining("node id");
        assertThatThrownBy(() -> new NodeInfo("n", "h h", 1)).hasMessageContaining("host");
        assertThatThrownBy(() -> new NodeInfo("n", "h", 0)).hasMessageContaining("port");
        assertThatThrownBy(() -> new NodeInfo("n", "h", 65536)).hasMessageContaining("port");
    }

    @Test
    void entryRoundTripsThroughJson() {
        NodeEntry entry = new NodeEntry(new NodeInfo("node-1", "10.1.2.3", 7000), Instant.parse("2025-03-04T05:06:07.123Z"));
        assertThat(new String(entry.toJson(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("{\"v\":1,\"nodeId\":\"node-1\",\"host\":\"10.1.2.3\",\"port\":7000,\"joinedAt\":\"2025-03-04T05:06:07.123Z\"}");
        assertThat(NodeEntry.parse(entry.toJson())).isEqualTo(entry);
    }

    @Test
    void anEntryWhoseBroadcastBegunSaysSoAndOneWithoutTheFieldHasNotBegun() {
        NodeEntry entry = new NodeEntry(new NodeInfo("node-1", "10.1.2.3", 7000), Instant.parse("2025-03-04T05:06:07Z"));
        NodeEntry begun = entry.withBegun();
        assertThat(new String(begun.toJson(), java.nio.charset.StandardCharsets.UTF_8)).endsWith(",\"begun\":true}");
        assertThat(NodeEntry.parse(begun.toJson())).isEqualTo(begun);
        assertThat(NodeEntry.parse(entry.toJson()).begun()).isFalse();
    }

    @Test
    void entryParsingIgnoresUnknownFieldsAndWhitespace() {
        String json = " { \"joinedAt\" : \"2025-01-01T00:00:00Z\", \"extra\": {\"no\":1}, \"port\": 80, \"host\":\"h\\u0031\", \"nodeId\":\"n\" } ";
        assertThatThrownBy(() -> NodeEntry.parse(json.getBytes())).hasMessageContaining("not a node entry");
        String flat = " { \"joinedAt\" : \"2025-01-01T00:00:00Z\", \"extra\": true, \"n\": null, \"port\": 80, \"host\":\"h\\u0031\", \"nodeId\":\"n\" } ";
        assertThat(NodeEntry.parse(flat.getBytes()).node()).isEqualTo(new NodeInfo("n", "h1", 80));
    }

    @Test
    void entryParsingExplainsWhatIsWrong() {
        assertThatThrownBy(() -> NodeEntry.parse("{\"nodeId\":\"n\"}".getBytes())).hasMessageContaining("no host");
        assertThatThrownBy(() -> NodeEntry.parse("{\"nodeId\":\"n\"".getBytes())).hasMessageContaining("not a node entry");
        assertThatThrownBy(() -> NodeEntry.parse("hello".getBytes())).hasMessageContaining("not a node entry");
    }
}
