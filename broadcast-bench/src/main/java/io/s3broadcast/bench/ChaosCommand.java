package io.s3broadcast.bench;

import io.s3broadcast.bench.chaos.ChaosContext;
import io.s3broadcast.bench.chaos.ChaosObject;
import io.s3broadcast.bench.chaos.LyingScenario;
import io.s3broadcast.bench.chaos.ChaosResult;
import io.s3broadcast.bench.chaos.ChaosScenario;
import io.s3broadcast.bench.chaos.ChaosScenarios;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * {@code chaos}: adversarial scenarios against real {@code node} processes (one JVM each) on an S3Proxy started in
 * this JVM; prints a table and one JSON line per scenario, and exits 1 if any defence did not hold.
 */
@Command(name = "chaos",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Attack real node processes (strangers, wrong secrets, untrusted TLS, half-open connections, lying"
                + " peers) and check that every defence holds.",
        description = {
            "%nStarts S3Proxy in this JVM with a seeded random object of --size bytes, then for each scenario starts"
                    + " --nodes honest `node` processes (one JVM each, a static registry on loopback, a random group"
                    + " secret in S3BROADCAST_SECRET) and attacks them from this process. Scenarios: stranger (no"
                    + " secret), wrong-secret, tls-untrusted (nodes on mutual TLS; the adversary has the secret but"
                    + " no trusted certificate), half-open (300 connections that never finish a handshake);"
                    + " liar-stranger (a peer in no registry that holds the secret, claims every piece and serves junk"
                    + " under its true CRC32C and lying DIGESTS) and liar-member (a registry member that serves junk for"
                    + " its own share under consistent lying DIGESTS), each also as -no-digest on a multipart object"
                    + " whose ETag nothing can check (S3Proxy keeps no checksums), where only the spot check is left.",
            "%nEach scenario prints one JSON line: scenario, nodes, bytes of the object the adversary received,"
                    + " bitfields and other metadata it received, connections held open after the handshake timeout,"
                    + " whether every honest node published the exact object, time; a lying scenario also: by how many of the"
                    + " nodes it reached the liar was banned, pieces repaired, S3 bytes / S per node. Exit code 1 if any"
                    + " failed.",
        },
        footerHeading = "%nExample:%n",
        footer = "  java -jar broadcast-bench.jar chaos --scenario all --nodes 2 --size 16MiB")
final class ChaosCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "all",
            description = "stranger, wrong-secret, tls-untrusted, half-open, liar-stranger, liar-stranger-no-digest,"
                    + " liar-member, liar-member-no-digest or all (default: ${DEFAULT-VALUE}).")
    String scenario;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "2", description = "Honest node processes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--size", paramLabel = "SIZE", converter = ByteSize.Converter.class, defaultValue = "16MiB",
            description = "Object size (default: ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--handshake-timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "10s", description = "The nodes' handshake timeout (default: ${DEFAULT-VALUE}, the library's).")
    Duration handshakeTimeout;

    @Option(names = "--node-timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "3m", description = "How long a node process may run (default: ${DEFAULT-VALUE}).")
    Duration nodeTimeout;

    @Option(names = "--work-dir", paramLabel = "DIR", description = "Where nodes write (default: a temporary directory).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        List<ChaosScenario> scenarios = ChaosScenarios.named(scenario);
        Path dir = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("s3broadcast-chaos");
        PrintWriter out = spec.commandLine().getOut();
        List<ChaosResult> results = new ArrayList<>();
        try (Testbed testbed = Testbed.embedded(size, 7)) {
            Endpoint e = testbed.endpoint();
            String eTag;
            ChaosObject undigested;
            try (S3AsyncClient s3 = e.nettyClient(4).build()) {
                eTag = s3.headObject(b -> b.bucket(testbed.bucket()).key(testbed.key())).join().eTag();
                undigested = scenarios.stream().anyMatch(s -> s.name().endsWith(LyingScenario.UNDIGESTED))
                        ? putMultipart(s3, testbed.bucket(), testbed.key() + ".multipart", Math.max(size, LyingScenario.undigestedMinimum(nodes)))
                        : null;
            }
            Map<String, String> env = new HashMap<>();
            NodeJvm.environment(e, env);
            List<String> command = NodeJvm.command(List.of(), List.of());
            ChaosContext context = new ChaosContext(e.uri(), e.region().id(), env, e.pathStyle(), testbed.bucket(),
                    testbed.key(), eTag, testbed.size(), testbed.sha256(), nodes, handshakeTimeout, nodeTimeout, dir,
                    command, undigested);
            for (ChaosScenario s : scenarios) {
                out.printf(Locale.ROOT, "running %s: %s%n", s.name(), s.description());
                out.flush();
                ChaosResult r = s.run(context);
                results.add(r);
                out.println(Json.line(r));
                out.flush();
            }
        }
        out.printf(Locale.ROOT, "%n%-24s %5s %8s %14s %9s %8s %9s %10s %8s %6s%n", "scenario", "nodes", "attempts",
                "object bytes", "bitfields", "metadata", "held open", "byte-exact", "seconds", "passed");
        for (ChaosResult r : results) {
            out.printf(Locale.ROOT, "%-24s %5d %8d %14d %9d %8d %9d %10s %8.1f %6s%n", r.scenario(), r.nodes(),
                    r.attempts(), r.adversaryObjectBytes(), r.bitfieldsReceived(), r.metadataReceived(),
                    r.connectionsHeldOpen(), r.honestByteExact() ? "yes" : "NO", r.seconds(), r.passed() ? "yes" : "NO");
        }
        for (ChaosResult r : results) {
            if (r.liarBannedBy() != null) {
                out.printf(Locale.ROOT, "%-24s liar banned by %d of %d nodes it reached; pieces repaired %d; S3 bytes / S per"
                        + " node %s; end-to-end digest: %s%n", r.scenario(), r.liarBannedBy(), r.liarReached(),
                        r.piecesRepaired(), r.s3BytesPerObject(), r.endToEndDigest());
            }
        }
        out.printf(Locale.ROOT, "(node logs under %s)%n", dir);
        out.flush();
        return results.stream().allMatch(ChaosResult::passed) ? 0 : 1;
    }

    /**
     * Puts {@code size} seeded random bytes as a multipart upload of 5 MiB parts (the smallest S3 allows), one part
     * in memory at a time: an object whose ETag S3Proxy gives no way to check.
     */
    static ChaosObject putMultipart(S3AsyncClient s3, String bucket, String key, long size) throws Exception {
        long partSize = 5L << 20;
        java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
        java.util.Random random = new java.util.Random(11);
        String upload = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).join().uploadId();
        List<software.amazon.awssdk.services.s3.model.CompletedPart> parts = new ArrayList<>();
        for (long offset = 0; offset < size; offset += partSize) {
            byte[] part = new byte[(int) Math.min(partSize, size - offset)];
            random.nextBytes(part);
            sha.update(part);
            int number = parts.size() + 1;
            String partETag = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(upload).partNumber(number),
                    software.amazon.awssdk.core.async.AsyncRequestBody.fromBytes(part)).join().eTag();
            parts.add(software.amazon.awssdk.services.s3.model.CompletedPart.builder().partNumber(number)
                    .eTag(partETag).build());
        }
        String eTag = s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(upload)
                .multipartUpload(m -> m.parts(parts))).join().eTag();
        return new ChaosObject(bucket, key, eTag, size, java.util.HexFormat.of().formatHex(sha.digest()));
    }
}
