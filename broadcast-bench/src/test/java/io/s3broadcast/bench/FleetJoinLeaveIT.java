package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.testkit.S3Backend;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A smoke of {@code fleet --join --leave} in process: one node joins late through the S3-prefix registry, one
 * leaves mid-run; every node that stays has the object byte-exact, the trial has its throughput series and the
 * chart is drawn.
 */
@Timeout(300)
class FleetJoinLeaveIT {

    @BeforeAll
    static void onlyInTheS3ProxyPass() {
        assumeTrue(S3Backend.selected() == S3Backend.S3PROXY,
                "the bench runs its own embedded S3Proxy; it is tested in the s3proxy pass only");
    }

    @Test
    void oneJoinsAndOneLeavesAndTheOthersCompleteByteExact(@TempDir Path dir) throws Exception {
        Path chart = dir.resolve("churn.png");
        BenchCliIT.Run run = BenchCliIT.execute("fleet", "--level", "inprocess", "--nodes", "4", "--size", "8MiB",
                "--link", "4MB", "--strategies", "overlap", "--baselines", "none", "--s3-profile",
                "fixed:20MB;latency=5ms", "--piece-size", "256KiB", "--linger", "5s", "--join", "1@1s", "--leave",
                "1@1500ms", "--chart", chart.toString(), "--work-dir", dir.toString());

        assertThat(run.exitCode()).as(run.out()).isZero();
        assertThat(run.out()).contains("join and leave: 1 join, 1 leave at +1.0 s and +1.5 s from the transfer's start");
        JsonNode trial = run.jsonLines().get(0).path("runs").get(0);
        assertThat(trial.path("sha256Match").asBoolean()).as("byte-exact on every node that stayed").isTrue();
        assertThat(trial.path("nodes").get(2).path("role").asText()).isEqualTo("leave");
        JsonNode joiner = trial.path("nodes").get(3);
        assertThat(joiner.path("role").asText()).isEqualTo("join");
        assertThat(joiner.path("sha256Match").asBoolean()).isTrue();
        assertThat(trial.path("throughput").size()).isPositive();
        assertThat(Files.size(chart)).isPositive();
        assertThat(dir.resolve("churn.csv")).exists();
    }
}
