package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import io.s3broadcast.testkit.S3Backend;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
    void demoFetchesWithBroadcastAndVerifies() throws Exception {
        Run run = execute("demo", "--size", "16MiB");

        JsonNode json = run.json();
        assertThat(json.path("command").asText()).isEqualTo("demo");
        assertThat(json.path("size").asLong()).isEqualTo(16L << 20);
        assertThat(json.path("bytes").asLong()).isEqualTo(16L << 20);
        assertThat(json.path("bytesFromS3").asLong()).isGreaterThanOrEqualTo(16L << 20);
        assertThat(json.path("seconds").asDouble()).isPositive();
        assertThat(json.path("rate").asDouble()).isPositive();
        assertThat(json.path("path").asText()).isNotEmpty();
        assertThat(json.has("checksumVerified")).isTrue();
        assertThat(json.path("sha256Match").asBoolean()).isTrue();
        assertThat(run.exitCode()).isZero();
    }

    @Test
    void helpNamesTheCommands() {
        Run run = execute("--help");

        assertThat(run.out()).contains("single", "demo");
        assertThat(run.exitCode()).isZero();
    }

    private static Run execute(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cli = BenchCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        int code = cli.execute(args);
        return new Run(code, out.toString());
    }

    private record Run(int exitCode, String out) {

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
