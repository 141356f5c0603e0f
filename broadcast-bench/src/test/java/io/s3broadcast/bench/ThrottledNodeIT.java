package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.testkit.S3Backend;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The paper's steal experiment through {@code cluster}: node 0's S3 connections get a tenth of the others' rate, so
 * without stealing the whole cluster waits for node 0's share, and with stealing the others take most of it.
 *
 * <p>Every node reads S3 through a rate-limited proxy (4 MiB/s per connection, 400 KiB/s for node 0), so the result
 * depends on the limits, not on how busy the machine is: node 0's 16 MiB share over 4 connections takes about 10 s
 * without stealing, while with stealing the cluster reads the 64 MiB at about 50 MiB/s and node 0 is left with only
 * its last ranges in flight (4 x 512 KiB, about 1.3 s).
 */
class ThrottledNodeIT {

    private static final int ATTEMPTS = 2;
    private static final double REQUIRED_SPEEDUP = 1.5;

    @BeforeAll
    static void onlyInTheS3ProxyPass() {
        assumeTrue(S3Backend.selected() == S3Backend.S3PROXY,
                "the bench runs its own embedded S3Proxy; it is tested in the s3proxy pass only");
    }

    @Test
    void stealingFinishesAtLeastOneAndAHalfTimesSoonerThanNonStealWithOneSlowNode() throws Exception {
        List<String> ratios = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            BenchCliIT.Run run = BenchCliIT.execute("cluster", "--nodes", "4", "--size", "64MiB",
                    "--strategies", "non-steal,steal", "--trials", "1",
                    "--piece-size", "512KiB", "--range-size", "512KiB", "--work-size", "2", "--connections", "4",
                    "--node-rate", "4MiB", "--throttle-node", "0", "--throttle-rate", "400KiB");
            List<JsonNode> lines = run.jsonLines();
            assertThat(lines).hasSize(2);
            JsonNode nonSteal = lines.get(0);
            JsonNode steal = lines.get(1);
            assertThat(nonSteal.path("strategy").asText()).isEqualTo("NON_STEAL");
            assertThat(steal.path("strategy").asText()).isEqualTo("STEAL");
            for (JsonNode json : lines) {
                assertThat(json.path("sha256Match").asBoolean()).as("sha256Match of " + json).isTrue();
                assertThat(json.path("s3Reads").asDouble()).as("S3 reads of " + json.path("strategy")).isBetween(1.0, 1.05);
                assertThat(json.path("throttleNode").asInt()).isZero();
            }
            JsonNode stealNodes = steal.path("runs").get(0).path("nodes");
            long stolen = 0;
            for (JsonNode node : stealNodes) {
                stolen += node.path("piecesStolen").asLong();
            }
            assertThat(stolen).as("pieces stolen under STEAL: " + stealNodes).isPositive();
            assertThat(nonSteal.path("runs").get(0).path("nodes").findValues("piecesStolen"))
                    .allSatisfy(n -> assertThat(n.asLong()).isZero());

            double ratio = nonSteal.path("slowest").asDouble() / steal.path("slowest").asDouble();
            ratios.add(String.format(java.util.Locale.ROOT, "%.2f (non-steal %.3f s, steal %.3f s)", ratio,
                    nonSteal.path("slowest").asDouble(), steal.path("slowest").asDouble()));
            if (ratio >= REQUIRED_SPEEDUP) {
                return;
            }
        }
        org.assertj.core.api.Assertions.fail("STEAL's slowest node was not %.1fx sooner than NON_STEAL's in %d attempts: %s",
                REQUIRED_SPEEDUP, ATTEMPTS, ratios);
    }
}
