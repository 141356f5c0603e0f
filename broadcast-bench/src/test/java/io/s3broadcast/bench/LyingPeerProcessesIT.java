package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.bench.chaos.LyingPeer;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.testkit.FreePorts;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two {@code node} processes and a stranger that is in no registry but knows the object (bucket, key, ETag: a
 * HEAD tells them) and holds the group secret (stolen, or a member gone rogue): it connects to both, claims
 * every piece and answers every request with junk under the junk's true CRC32C, with or without
 * {@code DIGESTS} vouching for the junk. Both nodes ban it ({@code GOODBYE(BAD_PIECE)}) and publish the exact
 * object.
 */
@RealS3
class LyingPeerProcessesIT {

    private static final long SIZE = 6L << 20;
    private static final int PIECE_SIZE = 64 << 10;

    @ParameterizedTest(name = "lies in DIGESTS too: {0}")
    @ValueSource(booleans = {true, false})
    void aStrangerServingJunkUnderTrueCrcsIsBannedAndBothNodesPublishTheExactObject(boolean lieInDigests, S3Fixture s3,
            @TempDir Path dir) throws Exception {
        StoredObject object = s3.putRandom(s3.key("victim.bin"), SIZE, lieInDigests ? 41 : 42);
        List<Integer> ports = FreePorts.loopback(2);
        String registry = "static:" + ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        List<NodeProcessesIT.Node> nodes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            int port = ports.get(i);
            nodes.add(NodeProcessesIT.start(s3, dir, "node-" + i, List.of("node",
                    "--endpoint", s3.endpoint().toString(), "--path-style", String.valueOf(s3.server().pathStyle()),
                    "--bucket", object.bucket(), "--key", object.key(), "--out", dir.resolve("node-" + i).toString(),
                    "--registry", registry, "--listen", "127.0.0.1:" + port, "--node-id", NodeInfo.idFor("127.0.0.1", port),
                    "--expect", "2", "--expect-timeout", "60s", "--strategy", "OVERLAP",
                    "--piece-size", "64KiB", "--range-size", "256KiB", "--connections", "4", "--linger", "10s")));
        }
        try (LyingPeer liar = LyingPeer.builder()
                .group(GroupId.of(object.bucket(), object.key(), object.eTag()).hash())
                .layout(new PieceLayout(SIZE, PIECE_SIZE))
                .nodeId("stranger")
                .secret(NodeProcessesIT.SECRET.getBytes(StandardCharsets.UTF_8)) // stolen: it is in no registry
                .lieInDigests(lieInDigests)
                .build()) {
            for (int port : ports) {
                connectWhenListening(liar, new InetSocketAddress("127.0.0.1", port));
            }
            List<String> banners = new ArrayList<>();
            for (NodeProcessesIT.Node node : nodes) {
                JsonNode json = node.awaitJson();
                assertThat(json.path("error").isNull()).as(node.name() + " error: " + json.path("error")).isTrue();
                assertThat(json.path("sha256").asText()).as(node.name() + " sha256").isEqualTo(object.sha256());
                List<String> banned = new ArrayList<>();
                json.path("bannedPeers").forEach(b -> banned.add(b.asText()));
                // Banned during the fetch (the result names it) or, a node that finished before the liar reached
                // it, while lingering (its log does).
                boolean inLog = Files.readString(node.dir().resolve(node.name() + ".err")).contains("banned stranger");
                if (banned.contains("stranger") || inLog) {
                    banners.add(node.name());
                }
            }
            List<Goodbye.Reason> reasons = liar.goodbyes().stream().map(Goodbye::reason).toList();
            if (lieInDigests) {
                // Its digests contradict each node's own S3 reads: both ban it whatever they asked of it.
                assertThat(banners).as("nodes that banned the liar").containsExactly("node-0", "node-1");
            } else {
                // A node bans it on the first junk piece it asks it for (a node may finish without asking).
                assertThat(banners).as("nodes that banned the liar").isNotEmpty();
            }
            // GOODBYE is best effort (a connection reset while the liar writes can lose it): one at least arrives.
            assertThat(reasons).as("what the liar was told").contains(Goodbye.Reason.BAD_PIECE)
                    .doesNotContain(Goodbye.Reason.NORMAL);
            assertThat(liar.allClosed()).as("every connection of the liar closed").isTrue();
        }
    }

    /** Connects once the node process listens (it is starting up); gives up after a minute. */
    private static void connectWhenListening(LyingPeer liar, InetSocketAddress node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                liar.connect(node).get(40, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                // Not listening yet: try again shortly.
                CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS)).get();
            }
        }
    }
}
