package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import io.s3broadcast.testkit.S3Backend;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Runs the commands in-process, on small objects, and reads their JSON line. */
class BenchCliIT {

    /** The bench starts its own S3Proxy whatever the backend, so one pass over the ITs is enough. */
    @BeforeAll
    static void onlyInTheS3ProxyPass() {
        assumeTrue(S3Backend.selected() == S3Backend.S3PROXY,
                "the bench runs its own embedded S3Proxy; it is tested in the s3proxy pass only");
    }

    @Test
    void singleFreshJvmRunsOursInANodeJvmPerDownloadBesideAria2(@TempDir Path cds) throws Exception {
        assumeTrue(FleetTools.find("aria2c") != null, "aria2c is not installed");
        // Under surefire the class path has class directories: no class-data archive can be made, and the node
        // JVMs run without one.
        Run run = execute("single", "--size", "8MiB", "--trials", "1", "--warmup", "0", "--fresh-jvm", "--methods",
                "ours,aria2", "--cds-dir", cds.toString());

        JsonNode json = run.json();
        for (String method : List.of("ours", "aria2")) {
            JsonNode m = json.path("methods").path(method);
            assertThat(m.path("errors").isEmpty()).as(method + " errors: " + m.path("errors")).isTrue();
            assertThat(m.path("sha256Match").asBoolean()).as(method + " sha256Match").isTrue();
            assertThat(m.path("processSeconds").get(0).asDouble()).as(method + " process").isPositive();
            assertThat(m.path("seconds").get(0).asDouble()).as(method + " seconds").isPositive();
        }
        assertThat(json.path("methods").path("ours").path("settings").path("api").asText()).contains("fresh node JVM");
        // The node's Broadcast.builder().build(), beside its fetch; aria2c has none.
        assertThat(json.path("methods").path("ours").path("buildSeconds").get(0).asDouble()).isPositive();
        assertThat(json.path("methods").path("aria2").path("buildSeconds").get(0).isNull()).isTrue();
        assertThat(run.out()).contains("build s");
        assertThat(json.path("ratioAria2").asDouble()).isPositive();
        assertThat(run.out()).contains("ours / aria2");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    void singleTimesEveryMethodAndVerifiesEachDownload() throws Exception {
        Run run = execute("single", "--size", "8MiB", "--trials", "1");

        JsonNode json = run.json();
        assertThat(json.path("command").asText()).isEqualTo("single");
        assertThat(json.path("size").asLong()).isEqualTo(8L << 20);
        assertThat(json.path("endpointKind").asText()).isEqualTo("embedded");
        assertThat(json.path("server").asText()).isEqualTo("s3proxy");
        assertThat(json.path("trials").asInt()).isEqualTo(1);
        assertThat(json.path("sha256").asText()).hasSize(64);
        assertThat(json.path("sha256Source").asText()).isEqualTo("seeded");
        for (String method : List.of("ours", "transferManager", "getObject")) {
            JsonNode m = json.path("methods").path(method);
            assertThat(m.path("errors").isEmpty()).as(method + " errors: " + m.path("errors")).isTrue();
            assertThat(m.path("sha256Match").asBoolean()).as(method + " sha256Match").isTrue();
            assertThat(m.path("rates")).hasSize(1);
            assertThat(m.path("rates").get(0).asDouble()).as(method + " rate").isPositive();
            assertThat(m.path("median").asDouble()).as(method + " median").isPositive();
            assertThat(m.path("settings").isObject()).isTrue();
        }
        assertThat(json.path("ratio").asDouble()).isPositive();
        assertThat(run.out()).contains("method", "MB/s", "sha256 ok");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    void singleWithAnS3ProfileReadsThroughTheProxy() throws Exception {
        Run run = execute("single", "--size", "4MiB", "--trials", "1", "--warmup", "0", "--methods", "ours,getObject",
                "--s3-profile", "unlimited;latency=20ms");

        JsonNode json = run.json();
        assertThat(json.path("s3Profile").asText()).isEqualTo("unlimited;latency=20ms");
        for (String method : List.of("ours", "getObject")) {
            JsonNode m = json.path("methods").path(method);
            assertThat(m.path("errors").isEmpty()).as(method + " errors: " + m.path("errors")).isTrue();
            assertThat(m.path("sha256Match").asBoolean()).as(method + " sha256Match").isTrue();
            // At least the HEAD's or the GET's first byte waited out the latency.
            assertThat(m.path("seconds").get(0).asDouble()).as(method + " seconds").isGreaterThanOrEqualTo(0.02);
        }
        assertThat(run.exitCode()).isZero();
    }

    @Test
    void singleRefusesAnUnreadableS3Profile() {
        Run run = execute("single", "--size", "1MiB", "--s3-profile", "paper;speed=3");

        assertThat(run.exitCode()).isNotZero();
    }

    @Test
    void demoComparesTheFlatTreeWithAClusterStrategy() throws Exception {
        Run run = execute("demo", "--nodes", "3", "--size", "8MiB", "--no-progress");

        JsonNode json = run.json();
        assertThat(json.path("command").asText()).isEqualTo("demo");
        assertThat(json.path("nodes").asInt()).isEqualTo(3);
        assertThat(json.path("size").asLong()).isEqualTo(8L << 20);
        assertThat(json.path("strategy").asText()).isEqualTo(DemoCommand.DEFAULT_CLUSTER_STRATEGY.name());
        assertThat(json.path("sha256Match").asBoolean()).as("sha256Match: " + json).isTrue();
        JsonNode flat = json.path("runs").path("FLAT_TREE");
        JsonNode cluster = json.path("runs").path(DemoCommand.DEFAULT_CLUSTER_STRATEGY.name());
        assertThat(flat.path("nodes")).hasSize(3);
        assertThat(cluster.path("nodes")).hasSize(3);
        assertThat(flat.path("s3Reads").asDouble()).isGreaterThanOrEqualTo(3.0);
        assertThat(cluster.path("s3Reads").asDouble()).isBetween(1.0, 1.05);
        assertThat(json.path("speedup").asDouble()).isPositive();
        assertThat(json.path("s3ReadsSaved").asDouble()).isGreaterThan(2.5);
        assertThat(run.out()).contains("flat-tree", Converters.name(DemoCommand.DEFAULT_CLUSTER_STRATEGY), "slowest",
                "sha256             ok on every node");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    void demoWithAPrefixFetchesEveryObjectOnEveryNodeAsOneBroadcast() throws Exception {
        Run run = execute("demo", "--nodes", "2", "--prefix", "dataset/", "--objects", "3", "--size", "300KiB",
                "--piece-size", "64KiB", "--range-size", "128KiB", "--no-progress");

        JsonNode json = run.json();
        assertThat(json.path("command").asText()).isEqualTo("demo");
        assertThat(json.path("prefix").asText()).endsWith("dataset/");
        assertThat(json.path("objects").asInt()).isEqualTo(3);
        assertThat(json.path("size").asLong()).isEqualTo(3L * 300 * 1024);
        assertThat(json.path("sha256Match").asBoolean()).as("sha256Match: " + json).isTrue();
        for (String strategy : List.of("FLAT_TREE", DemoCommand.DEFAULT_CLUSTER_STRATEGY.name())) {
            JsonNode nodes = json.path("runs").path(strategy);
            assertThat(nodes).hasSize(2);
            long fromS3 = 0;
            for (JsonNode n : nodes) {
                assertThat(n.path("error").isNull()).as(n.toString()).isTrue();
                assertThat(n.path("transferredBytes").asLong()).as("one progress total").isEqualTo(3L * 300 * 1024);
                fromS3 += n.path("bytesFromS3").asLong();
            }
            long total = 3L * 300 * 1024;
            if (strategy.equals("FLAT_TREE")) {
                assertThat(fromS3).isGreaterThanOrEqualTo(2 * total);
            } else {
                assertThat(fromS3).isBetween(total, (long) (total * 1.1));
            }
        }
        assertThat(run.out()).contains("sha256             ok on every node");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    void clusterRunsThreeNodesPerStrategyAndVerifiesEveryFile() throws Exception {
        List<String> strategies = List.of("flat", "non-steal", "steal", "overlap");
        Run run = execute("cluster", "--nodes", "3", "--size", "4MiB", "--strategies", String.join(",", strategies),
                "--piece-size", "256KiB", "--range-size", "512KiB", "--connections", "4");

        List<JsonNode> lines = run.jsonLines();
        assertThat(lines).hasSize(strategies.size());
        for (int i = 0; i < strategies.size(); i++) {
            JsonNode json = lines.get(i);
            String strategy = io.s3broadcast.Strategy.parse(strategies.get(i)).name();
            assertThat(json.path("command").asText()).isEqualTo("cluster");
            assertThat(json.path("strategy").asText()).isEqualTo(strategy);
            assertThat(json.path("nodes").asInt()).isEqualTo(3);
            assertThat(json.path("size").asLong()).isEqualTo(4L << 20);
            assertThat(json.path("sha256Match").asBoolean()).as(strategy + " sha256Match: " + json).isTrue();
            assertThat(json.path("fastest").asDouble()).isPositive();
            assertThat(json.path("slowest").asDouble()).isGreaterThanOrEqualTo(json.path("average").asDouble());
            assertThat(json.path("average").asDouble()).isGreaterThanOrEqualTo(json.path("fastest").asDouble());
            JsonNode nodes = json.path("runs").get(0).path("nodes");
            assertThat(nodes).hasSize(3);
            for (JsonNode node : nodes) {
                assertThat(node.path("error").isNull()).as(strategy + " node error: " + node.path("error")).isTrue();
                assertThat(node.path("seconds").asDouble()).isPositive();
                assertThat(node.path("sha256Match").asBoolean()).isTrue();
            }
            double s3Reads = json.path("s3Reads").asDouble();
            if (strategy.equals("FLAT_TREE")) {
                assertThat(s3Reads).isGreaterThanOrEqualTo(3.0);
            } else {
                assertThat(s3Reads).as(strategy + " S3 reads").isBetween(1.0, 1.05);
            }
        }
        assertThat(run.out()).contains("strategy", "fastest", "slowest");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    void helpNamesTheCommands() {
        Run run = execute("--help");

        assertThat(run.out()).contains("single", "demo", "node", "cluster");
        assertThat(run.exitCode()).isZero();
    }

    static Run execute(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cli = BenchCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        int code = cli.execute(args);
        return new Run(code, out.toString());
    }

    record Run(int exitCode, String out) {

        /** Every JSON line of stdout, in order. */
        List<JsonNode> jsonLines() throws Exception {
            List<JsonNode> json = new java.util.ArrayList<>();
            for (String line : out.lines().filter(l -> l.startsWith("{")).toList()) {
                json.add(Json.mapper().readTree(line));
            }
            return json;
        }

        /** The last line of stdout, which must be the JSON summary. */
        JsonNode json() throws Exception {
            List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
            assertThat(lines).as("stdout").isNotEmpty();
            String last = lines.get(lines.size() - 1);
            assertThat(last).as("last line of stdout").startsWith("{").endsWith("}");
            return Json.mapper().readTree(last);
        }
    }
}
