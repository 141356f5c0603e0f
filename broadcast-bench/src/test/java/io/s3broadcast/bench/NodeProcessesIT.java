package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.Strategy;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.testkit.FreePorts;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * {@code node} as a fleet runs it: one JVM process per node, started with {@code java -cp <this test's classpath>},
 * against the test's S3 server with credentials and region in the environment, in a static registry of free
 * loopback ports.
 */
@RealS3
class NodeProcessesIT {

    /** The group secret every node process gets. */
    static final String SECRET = "node-processes-it-secret-0123456789";
    private static final int NODES = 4;
    private static final long SIZE = 6L << 20;
    private static final long PROCESS_TIMEOUT_SECONDS = 180;

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"NON_STEAL", "STEAL", "OVERLAP"})
    void fourNodeProcessesEachEndWithTheObjectReadOnceFromS3(Strategy strategy, S3Fixture s3, @TempDir Path dir)
            throws Exception {
        StoredObject object = s3.putRandom(s3.key("fleet.bin"), SIZE, 11);
        List<Integer> ports = FreePorts.loopback(NODES);
        String registry = "static:" + ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));

        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            int port = ports.get(i);
            nodes.add(start(s3, dir, "node-" + i, List.of("node",
                    "--endpoint", s3.endpoint().toString(), "--path-style", String.valueOf(s3.server().pathStyle()),
                    "--bucket", object.bucket(), "--key", object.key(), "--out", dir.resolve("node-" + i).toString(),
                    "--registry", registry, "--listen", "127.0.0.1:" + port, "--node-id", NodeInfo.idFor("127.0.0.1", port),
                    "--expect", String.valueOf(NODES), "--expect-timeout", "90s", "--strategy", strategy.name(),
                    "--piece-size", "256KiB", "--range-size", "512KiB", "--connections", "4", "--linger", "30s")));
        }

        long fromS3 = 0;
        for (Node node : nodes) {
            JsonNode json = node.awaitJson();
            assertThat(json.path("command").asText()).isEqualTo("node");
            assertThat(json.path("error").isNull()).as(node.name + " error: " + json.path("error")).isTrue();
            assertThat(json.path("strategy").asText()).isEqualTo(strategy.name());
            assertThat(json.path("sha256").asText()).as(node.name + " sha256").isEqualTo(object.sha256());
            assertThat(json.path("size").asLong()).isEqualTo(SIZE);
            assertThat(Files.size(Path.of(json.path("path").asText()))).isEqualTo(SIZE);
            assertThat(json.path("bytesFromPeers").asLong()).as(node.name + " bytes from peers").isPositive();
            assertThat(json.path("bytesFromS3").asLong() + json.path("bytesFromPeers").asLong())
                    .as(node.name + " bytes from S3 and peers").isGreaterThanOrEqualTo(SIZE);
            assertThat(json.path("seconds").asDouble()).isPositive();
            fromS3 += json.path("bytesFromS3").asLong();
        }
        assertThat(fromS3).as("bytes read from S3 by all nodes together").isBetween(SIZE, (long) (SIZE * 1.05));
    }

    @Test
    void withoutARegistryANodeProcessFetchesAloneWithTheFlatTree(S3Fixture s3, @TempDir Path dir) throws Exception {
        StoredObject object = s3.putRandom(s3.key("alone.bin"), SIZE, 12);

        Node node = start(s3, dir, "flat", List.of("node",
                "--endpoint", s3.endpoint().toString(), "--path-style", String.valueOf(s3.server().pathStyle()),
                "--bucket", object.bucket(), "--key", object.key(), "--out", dir.resolve("flat").toString(),
                "--node-id", "solo"));

        JsonNode json = node.awaitJson();
        assertThat(json.path("nodeId").asText()).isEqualTo("solo");
        assertThat(json.path("strategy").asText()).isEqualTo("FLAT_TREE");
        assertThat(json.path("sha256").asText()).isEqualTo(object.sha256());
        assertThat(json.path("bytesFromS3").asLong()).isGreaterThanOrEqualTo(SIZE);
        assertThat(json.path("bytesFromPeers").asLong()).isZero();
        assertThat(json.path("path").asText()).endsWith("alone.bin");
    }

    @Test
    void twoNodeProcessesFetchEveryObjectUnderAPrefixAndReportEachAndTheTotals(S3Fixture s3, @TempDir Path dir)
            throws Exception {
        List<StoredObject> objects = List.of(s3.putRandom(s3.key("ds/a.bin"), 900_000, 21),
                s3.putRandom(s3.key("ds/sub/b.bin"), 300_000, 22), s3.putRandom(s3.key("ds/c.bin"), 1_234, 23));
        long total = objects.stream().mapToLong(StoredObject::size).sum();
        List<Integer> ports = FreePorts.loopback(2);
        String registry = "static:" + ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            int port = ports.get(i);
            nodes.add(start(s3, dir, "prefix-" + i, List.of("node",
                    "--endpoint", s3.endpoint().toString(), "--path-style", String.valueOf(s3.server().pathStyle()),
                    "--bucket", s3.bucket(), "--prefix", s3.key("ds/"), "--out", dir.resolve("prefix-" + i).toString(),
                    "--registry", registry, "--listen", "127.0.0.1:" + port, "--node-id", NodeInfo.idFor("127.0.0.1", port),
                    "--expect", "2", "--expect-timeout", "90s", "--strategy", "overlap", "--piece-size", "64KiB",
                    "--range-size", "128KiB", "--connections", "4", "--linger", "10s")));
        }
        long fromS3 = 0;
        for (Node node : nodes) {
            JsonNode json = node.awaitJson();
            assertThat(json.path("error").isNull()).as(node.name + " error: " + json.path("error")).isTrue();
            assertThat(json.path("prefix").asText()).isEqualTo(s3.key("ds/"));
            JsonNode list = json.path("objects");
            assertThat(list.size()).isEqualTo(3);
            for (int i = 0; i < 3; i++) { // key order: a.bin, c.bin, sub/b.bin
                StoredObject o = objects.get(new int[] {0, 2, 1}[i]);
                assertThat(list.get(i).path("key").asText()).isEqualTo(o.key());
                assertThat(list.get(i).path("sha256").asText()).as(node.name + " " + o.key()).isEqualTo(o.sha256());
                assertThat(list.get(i).path("size").asLong()).isEqualTo(o.size());
            }
            assertThat(Path.of(list.get(2).path("path").asText())).endsWith(Path.of("sub", "b.bin"));
            JsonNode totals = json.path("totals");
            assertThat(totals.path("objects").asInt()).isEqualTo(3);
            assertThat(totals.path("size").asLong()).isEqualTo(total);
            assertThat(totals.path("bytesFromS3").asLong() + totals.path("bytesFromPeers").asLong())
                    .isGreaterThanOrEqualTo(total);
            fromS3 += totals.path("bytesFromS3").asLong();
        }
        assertThat(fromS3).as("bytes read from S3 by both nodes").isLessThanOrEqualTo((long) (total * 1.1));
    }

    @Test
    void aNodeNeedsAKeyOrAPrefixNotBoth() throws Exception {
        BenchCliIT.Run neither = BenchCliIT.execute("node", "--bucket", "b", "--out", "/tmp/x");
        assertThat(neither.exitCode()).as("a usage error").isEqualTo(2);
        BenchCliIT.Run both = BenchCliIT.execute("node", "--bucket", "b", "--key", "k", "--prefix", "p/", "--out", "/tmp/x");
        assertThat(both.exitCode()).as("a usage error").isEqualTo(2);
    }

    @Test
    void nodesRepeatBroadcastsInLockStepAndReportGathersTheirResults(S3Fixture s3, @TempDir Path dir) throws Exception {
        StoredObject object = s3.putRandom(s3.key("trials.bin"), SIZE, 13);
        List<Integer> ports = FreePorts.loopback(2);
        String registry = "static:" + ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        String results = "s3://" + object.bucket() + "/" + s3.key("results");
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            int port = ports.get(i);
            nodes.add(start(s3, dir, "trials-" + i, List.of("node",
                    "--endpoint", s3.endpoint().toString(), "--path-style", String.valueOf(s3.server().pathStyle()),
                    "--bucket", object.bucket(), "--key", object.key(), "--out", dir.resolve("trials-" + i).toString(),
                    "--registry", registry, "--listen", "127.0.0.1:" + port, "--node-id", NodeInfo.idFor("127.0.0.1", port),
                    "--expect", "2", "--expect-timeout", "90s", "--trials", "2", "--strategies", "steal,flat",
                    "--results", results, "--piece-size", "256KiB", "--range-size", "512KiB", "--connections", "4",
                    "--linger", "10s")));
        }
        for (Node node : nodes) {
            node.awaitJson();
        }
        AwsCredentials credentials = s3.credentialsProvider().resolveCredentials();
        System.setProperty("aws.accessKeyId", credentials.accessKeyId());
        System.setProperty("aws.secretAccessKey", credentials.secretAccessKey());
        try {
            BenchCliIT.Run run = BenchCliIT.execute("report", "--results", results, "--endpoint", s3.endpoint().toString(),
                    "--region", s3.region().id(), "--path-style", String.valueOf(s3.server().pathStyle()));
            assertThat(run.exitCode()).as(run.out()).isZero();
            List<JsonNode> lines = run.jsonLines();
            assertThat(lines).extracting(l -> l.path("strategy").asText()).containsExactly("flat-tree", "steal");
            for (JsonNode l : lines) {
                assertThat(l.path("trials").asInt()).isEqualTo(2);
                assertThat(l.path("nodes").asInt()).isEqualTo(2);
                assertThat(l.path("sha256Match").asBoolean()).isTrue();
                assertThat(l.path("slowestSeconds").asDouble()).isPositive();
            }
            assertThat(lines.get(0).path("s3BytesOverSize").asDouble()).isCloseTo(2.0, org.assertj.core.data.Offset.offset(0.1));
            assertThat(lines.get(1).path("s3BytesOverSize").asDouble()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.1));
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
    }

    static Node start(S3Fixture s3, Path dir, String name, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), BenchCli.class.getName()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("S3BROADCAST_"));
        AwsCredentials credentials = s3.credentialsProvider().resolveCredentials();
        env.put("AWS_ACCESS_KEY_ID", credentials.accessKeyId());
        env.put("AWS_SECRET_ACCESS_KEY", credentials.secretAccessKey());
        if (credentials instanceof AwsSessionCredentials session) {
            env.put("AWS_SESSION_TOKEN", session.sessionToken());
        }
        env.put("AWS_REGION", s3.region().id());
        env.put("S3BROADCAST_SECRET", SECRET); // the static registry needs one
        return new Node(name, pb.start(), dir);
    }

    record Node(String name, Process process, Path dir) {

        /** Waits for the process to exit 0 and returns its last stdout line, parsed. */
        JsonNode awaitJson() throws Exception {
            if (!process.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                fail("%s still running after %d s; stderr:%n%s", name, PROCESS_TIMEOUT_SECONDS, tail(".err"));
            }
            List<String> lines = Files.readAllLines(dir.resolve(name + ".out")).stream().filter(l -> !l.isBlank()).toList();
            assertThat(process.exitValue()).as("%s exit code; stderr:%n%s", name, tail(".err")).isZero();
            assertThat(lines).as(name + " stdout").isNotEmpty();
            String last = lines.get(lines.size() - 1);
            assertThat(last).as(name + " last line").startsWith("{").endsWith("}");
            return Json.mapper().readTree(last);
        }

        private String tail(String suffix) throws IOException {
            List<String> lines = Files.readAllLines(dir.resolve(name + suffix));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        }
    }
}
