package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.testkit.S3Backend;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code chaos} command end to end, each scenario with a small object against two real {@code node} processes:
 * the adversary gets no byte of the object, no bitfield and nothing else past the handshake, no half-open
 * connection outlives the handshake timeout, and the honest nodes publish the exact object.
 */
class ChaosIT {

    @BeforeAll
    static void onlyInTheS3ProxyPass() {
        assumeTrue(S3Backend.selected() == S3Backend.S3PROXY,
                "the bench runs its own embedded S3Proxy; it is tested in the s3proxy pass only");
    }

    @ParameterizedTest
    @ValueSource(strings = {"stranger", "wrong-secret", "tls-untrusted", "half-open"})
    void theDefenceHolds(String scenario, @TempDir Path dir) throws Exception {
        BenchCliIT.Run run = chaos(scenario, dir);
        JsonNode r = run.jsonLines().get(0);
        assertThat(r.path("nodes").asInt()).isEqualTo(2);
        assertThat(r.path("attempts").asInt()).as(run.out()).isPositive();
        assertThat(r.path("adversaryObjectBytes").asLong()).as(run.out()).isZero();
        assertThat(r.path("bitfieldsReceived").asInt()).as(run.out()).isZero();
        assertThat(r.path("metadataReceived").asInt()).as(run.out()).isZero();
        assertThat(r.path("connectionsHeldOpen").asInt()).as(run.out()).isZero();
        assertThat(r.path("honestByteExact").asBoolean()).as(run.out()).isTrue();
        assertThat(r.path("passed").asBoolean()).isTrue();
        assertThat(run.exitCode()).isZero();
    }

    /**
     * A liar that holds the secret (a stranger in no registry, or a member), serving junk under true CRC32Cs and
     * lying digests, on an object with an end-to-end digest (single-part: the MD5 ETag) and without one (multipart
     * on S3Proxy): every node it reached bans it and both honest nodes publish the exact object.
     */
    @ParameterizedTest
    @ValueSource(strings = {"liar-stranger", "liar-stranger-no-digest", "liar-member", "liar-member-no-digest"})
    void theLiarIsBannedAndTheHonestNodesPublishTheExactObject(String scenario, @TempDir Path dir) throws Exception {
        BenchCliIT.Run run = chaos(scenario, dir);
        JsonNode r = run.jsonLines().get(0);
        assertThat(r.path("liarReached").asInt()).as(run.out()).isEqualTo(2);
        assertThat(r.path("liarBannedBy").asInt()).as(run.out()).isEqualTo(2);
        assertThat(r.path("honestByteExact").asBoolean()).as(run.out()).isTrue();
        assertThat(r.path("honestConnectionsRefused").asInt()).as(run.out()).isZero();
        assertThat(r.path("s3BytesPerObject")).as(run.out()).hasSize(2);
        assertThat(r.path("endToEndDigest").asText()).as(run.out())
                .startsWith(scenario.endsWith("-no-digest") ? "none" : "MD5");
        if (scenario.startsWith("liar-member")) {
            // The member's junk was accepted on its word first, then caught end to end and read again from S3.
            assertThat(r.path("piecesRepaired").asInt()).as(run.out()).isPositive();
        }
        assertThat(r.path("passed").asBoolean()).as(run.out()).isTrue();
        assertThat(run.exitCode()).isZero();
    }

    /**
     * A smoke run of the fault matrix, 2 trials per case of 3 nodes and a 4 MiB object: a node killed mid-run (and
     * one started again), the object replaced mid-run, access denied. Nothing wrong or partial at a destination,
     * every node that could complete did, and every failure is the clear error its case expects.
     */
    @org.junit.jupiter.api.Test
    void theFaultMatrixSmoke(@TempDir Path dir) throws Exception {
        BenchCliIT.Run run = BenchCliIT.execute("chaos", "--nodes", "3", "--size", "4MiB", "--trials", "2",
                "--kill", "0.34", "--restart", "--replace-object", "--deny-access", "--s3-rate", "4MiB",
                "--node-timeout", "3m", "--work-dir", dir.toString());
        List<JsonNode> lines = run.jsonLines();
        assertThat(lines).as(run.out()).extracting(l -> l.path("case").asText())
                .containsExactly("kill", "kill-restart", "replace-object", "deny-access");
        for (JsonNode r : lines) {
            assertThat(r.path("trials").asInt()).isEqualTo(2);
            assertThat(r.path("wrongBytes").asInt()).as(run.out()).isZero();
            assertThat(r.path("partialFiles").asInt()).as(run.out()).isZero();
            assertThat(r.path("completed").asInt()).as(run.out()).isEqualTo(r.path("couldComplete").asInt());
            assertThat(r.path("errorsByKind").has("hung")).as(run.out()).isFalse();
        }
        assertThat(lines.get(0).path("killed").asInt()).as(run.out()).isEqualTo(2);
        assertThat(lines.get(1).path("restarted").asInt()).as(run.out()).isEqualTo(2);
        assertThat(lines.get(1).path("restartedCompleted").asInt()).as(run.out()).isEqualTo(2);
        // A node may finish before the object changes; every other one fails naming the change.
        assertThat(lines.get(2).path("errorsByKind").path("ObjectChanged").asInt()
                + lines.get(2).path("completed").asInt()).as(run.out()).isEqualTo(6);
        assertThat(lines.get(3).path("errorsByKind").path("AccessDenied").asInt()).as(run.out()).isEqualTo(6);
        assertThat(run.exitCode()).as(run.out()).isZero();
    }

    /**
     * A smoke run of the rest of the fault matrix, 1 trial per case of 3 nodes and a 4 MiB object: one node cut off
     * from its peers and one cut off from S3, each S3 fault through the proxy, a peer whose bitfield lies and a
     * member that corrupts pieces under a matching CRC. Every node completes byte-exact and nothing partial is left
     * at a destination.
     */
    @org.junit.jupiter.api.Test
    void theFaultMatrixSmokeOfPartitionsS3FaultsAndLiars(@TempDir Path dir) throws Exception {
        BenchCliIT.Run run = BenchCliIT.execute("chaos", "--nodes", "3", "--size", "4MiB", "--trials", "1",
                "--partition", "--s3-faults", "0.25", "--lying-peers", "1", "--corrupt-peers", "1", "--s3-rate", "4MiB",
                "--node-timeout", "3m", "--work-dir", dir.toString());
        List<JsonNode> lines = run.jsonLines();
        assertThat(lines).as(run.out()).extracting(l -> l.path("case").asText()).contains("partition-peers",
                "partition-s3", "s3-slowdown-bursts", "s3-reset-mid-body", "s3-stalled-body", "s3-truncated-body",
                "s3-slow-first-byte", "lying-bitfield", "corrupt-member");
        for (JsonNode r : lines) {
            assertThat(r.path("wrongBytes").asInt()).as(run.out()).isZero();
            assertThat(r.path("partialFiles").asInt()).as(run.out()).isZero();
            assertThat(r.path("completed").asInt()).as(run.out()).isEqualTo(r.path("couldComplete").asInt());
            assertThat(r.path("errorsByKind").has("hung")).as(run.out()).isFalse();
        }
        assertThat(run.exitCode()).as(run.out()).isZero();
    }

    /** Runs one scenario with 2 nodes and a 3 MiB object; checks it printed one JSON line, for that scenario. */
    private static BenchCliIT.Run chaos(String scenario, Path dir) throws Exception {
        BenchCliIT.Run run = BenchCliIT.execute("chaos", "--scenario", scenario, "--nodes", "2", "--size", "3MiB",
                "--handshake-timeout", "2s", "--node-timeout", "2m", "--work-dir", dir.toString());
        List<JsonNode> lines = run.jsonLines();
        assertThat(lines).as(run.out()).hasSize(1);
        assertThat(lines.get(0).path("scenario").asText()).isEqualTo(scenario);
        return run;
    }
}
