package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.testkit.S3Backend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke fleet: 3 nodes, 4 MiB, steal and the flat tree, in network namespaces (skipped with the reason where
 * they cannot be made) and in-process (runs everywhere). Byte-exact files, S3 bytes counted by the proxy, and every
 * field of the JSON lines.
 */
@Timeout(300)
class FleetIT {

    private static final long SIZE = 4L << 20;
    private static final int NODES = 3;

    @BeforeAll
    static void onlyInTheS3ProxyPass() {
        assumeTrue(S3Backend.selected() == S3Backend.S3PROXY,
                "the bench runs its own embedded S3Proxy; it is tested in the s3proxy pass only");
    }

    @Test
    void netnsFleetOfThreeNodeJvms(@TempDir Path dir) throws Exception {
        String why = NetnsFleet.available();
        assumeTrue(why == null, "network namespaces cannot be made here: " + why);
        check(dir, "netns");
    }

    @Test
    void inProcessFleetOfThreeNodes(@TempDir Path dir) throws Exception {
        check(dir, "inprocess");
    }

    private static void check(Path dir, String level) throws Exception {
        Path json = dir.resolve("fleet.json");
        BenchCliIT.Run run = BenchCliIT.execute("fleet", "--level", level, "--nodes", String.valueOf(NODES), "--size",
                "4MiB", "--link", "20MB", "--strategies", "steal,flat", "--baselines", "none", "--s3-profile",
                "fixed:20MB;latency=5ms", "--piece-size", "256KiB", "--range-size", "512KiB", "--connections", "4",
                "--linger", "5s", "--json", json.toString(), "--work-dir", dir.toString());

        assertThat(run.exitCode()).as(run.out()).isZero();
        List<JsonNode> lines = run.jsonLines();
        assertThat(lines).extracting(l -> l.path("contender").asText()).containsExactly("steal", "flat-tree");
        for (JsonNode r : lines) {
            String c = r.path("contender").asText();
            assertThat(r.path("level").asText()).isEqualTo(level);
            if (level.equals("netns")) {
                assertThat(r.path("tcpCongestionControl").asText()).as("set in every node's namespace")
                        .isEqualTo(FleetCommand.CUBIC);
            }
            assertFields(r, FleetReport.class);
            assertFields(r.path("tStar"), FluidBound.class);
            assertThat(r.path("sha256Match").asBoolean()).as(c + " byte-exact on every node").isTrue();
            assertThat(r.path("tStar").path("seconds").asDouble()).isCloseTo(SIZE / 20e6, org.assertj.core.data.Offset.offset(0.01));
            assertThat(r.path("tStar").path("binds").asText()).isEqualTo("download");
            // No node beats the floor, but for what a link lets through at once: tc's small burst (netns), or the
            // in-process link's token bucket, which starts full with a tenth of a second at its rate (2 MB of this
            // 4 MiB object at 20 MB/s), so there the floor is 1 - 0.1 s * D / S of T*.
            double floor = level.equals("netns") ? 0.95 : 1 - 0.1 * 20e6 / SIZE - 0.05;
            assertThat(r.path("slowestOverTStar").asDouble()).as(c + " slowest / T*").isGreaterThanOrEqualTo(floor);
            JsonNode trial = r.path("runs").get(0);
            assertFields(trial, FleetTrial.class);
            assertThat(trial.path("nodes")).hasSize(NODES);
            long s3 = 0;
            for (JsonNode n : trial.path("nodes")) {
                assertFields(n, FleetNode.class);
                assertThat(n.path("sha256Match").asBoolean()).isTrue();
                assertThat(n.path("error").isNull()).isTrue();
                assertThat(n.path("seconds").asDouble()).isPositive();
                // measured by the proxy: at least what the node says it read (heads add a little)
                assertThat(n.path("bytesFromS3").asLong()).as(c + " node S3 bytes by the proxy")
                        .isGreaterThanOrEqualTo(n.path("bytesFromS3Reported").asLong());
                if (level.equals("netns")) {
                    assertThat(n.path("cpuSeconds").asDouble()).as("CPU of the node JVM").isPositive();
                    assertThat(n.path("peakRssBytes").asLong()).isPositive();
                    assertThat(n.path("exitSeconds").asDouble()).isGreaterThanOrEqualTo(n.path("seconds").asDouble() - 0.2);
                }
                s3 += n.path("bytesFromS3").asLong();
            }
            if (c.equals("flat-tree")) {
                assertThat(s3).isBetween(NODES * SIZE, (long) (NODES * SIZE * 1.02));
            } else {
                assertThat(s3).as("steal reads the object about once").isBetween(SIZE, (long) (SIZE * 1.1));
                assertThat(trial.path("nodes").findValues("bytesFromPeers").stream().mapToLong(JsonNode::asLong).sum())
                        .isPositive();
            }
        }
        assertThat(Files.readAllLines(json)).hasSize(2);
        List<String> csv = Files.readAllLines(dir.resolve("fleet.csv"));
        assertThat(csv.get(0)).isEqualTo(FleetTables.CSV_HEADER);
        assertThat(csv).hasSize(1 + 2 * NODES);
        assertThat(run.out()).contains("T* =", "summary", "slow/T*", "between nodes");
        // The S3 path is warmed before the first trial; the S3 bytes above show its reads count for no node.
        assertThat(run.out()).contains("S3 warmed before the first trial: " + S3Warmup.REQUESTS + " ranged GETs");
    }

    /** Every property the record declares is in the JSON object (null or not). */
    private static void assertFields(JsonNode node, Class<?> record) {
        String[] fields = record.getAnnotation(JsonPropertyOrder.class).value();
        for (String f : fields) {
            assertThat(node.has(f)).as(record.getSimpleName() + "." + f + " in " + node).isTrue();
        }
        assertThat(fields).hasSize(record.getRecordComponents().length);
    }
}
