package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.testkit.S3Backend;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-process fleet larger than the overlay: 40 nodes in this JVM, each keeping 8 peers, fetch a small object
 * byte-exact on every node, reading it from S3 about once (the 128-node run is in docs/scale.md).
 */
@Timeout(300)
class InProcessFleetIT {

    private static final int NODES = 40;
    private static final long SIZE = 4L << 20;

    @BeforeAll
    static void onlyInTheS3ProxyPass() {
        assumeTrue(S3Backend.selected() == S3Backend.S3PROXY,
                "the bench runs its own embedded S3Proxy; it is tested in the s3proxy pass only");
    }

    @Test
    void fortyNodesKeepingEightPeersEach(@TempDir Path dir) throws Exception {
        BenchCliIT.Run run = BenchCliIT.execute("fleet", "--level", "inprocess", "--nodes", String.valueOf(NODES),
                "--size", "4MiB", "--link", "20MB", "--strategies", "overlap", "--baselines", "none", "--s3-profile",
                "fixed:20MB;latency=5ms", "--piece-size", "64KiB", "--connections", "2", "--overlay-peers", "8",
                "--linger", "5s", "--work-dir", dir.toString());

        assertThat(run.exitCode()).as(run.out()).isZero();
        JsonNode r = run.jsonLines().get(0);
        assertThat(r.path("settings").path("overlayPeers").asInt()).isEqualTo(8);
        assertThat(r.path("sha256Match").asBoolean()).as("byte-exact on every node").isTrue();
        JsonNode trial = r.path("runs").get(0);
        assertThat(trial.path("nodes")).hasSize(NODES);
        long s3 = 0;
        for (JsonNode n : trial.path("nodes")) {
            assertThat(n.path("sha256Match").asBoolean()).isTrue();
            assertThat(n.path("error").isNull()).isTrue();
            s3 += n.path("bytesFromS3").asLong();
        }
        assertThat(s3).as("the object read from S3 about once").isBetween(SIZE, (long) (SIZE * 1.1));
    }
}
