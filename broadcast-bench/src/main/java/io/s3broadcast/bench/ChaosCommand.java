package io.s3broadcast.bench;

import io.s3broadcast.bench.chaos.ChaosContext;
import io.s3broadcast.bench.chaos.ChaosObject;
import io.s3broadcast.bench.chaos.LyingScenario;
import io.s3broadcast.bench.chaos.ChaosResult;
import io.s3broadcast.bench.chaos.ChaosScenario;
import io.s3broadcast.bench.chaos.ChaosScenarios;
import io.s3broadcast.bench.chaos.FaultCase;
import io.s3broadcast.bench.chaos.FaultCases;
import io.s3broadcast.bench.chaos.FaultMatrix;
import io.s3broadcast.bench.chaos.MatrixResult;
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

    @Option(names = "--trials", paramLabel = "T", defaultValue = "20",
            description = "Fault matrix: trials per fault case, each a fresh fleet (default: ${DEFAULT-VALUE}).")
    int trials;

    @Option(names = "--kill", paramLabel = "FRACTION",
            description = "Fault matrix: kill -9 this fraction of the nodes (at least one) at random moments mid-run.")
    Double kill;

    @Option(names = "--restart", description = "With --kill: also a case that starts half of the killed nodes again"
            + " (same destination, port and node id) and reports whether they completed and the S3 bytes they read.")
    boolean restart;

    @Option(names = "--corrupt-peers", paramLabel = "C", description = "Fault matrix: C registry members with the"
            + " secret that each corrupt as many of the pieces they vouch for as 1%% of the object's pieces (at least"
            + " one) under matching CRC32C and digests.")
    Integer corruptPeers;

    @Option(names = "--lying-peers", paramLabel = "L", description = "Fault matrix: L peers with the secret whose"
            + " bitfield claims every piece and which answer no request.")
    Integer lyingPeers;

    @Option(names = "--stranger", description = "Fault matrix: a stranger without the secret dials every node throughout.")
    boolean stranger;

    @Option(names = "--s3-faults", paramLabel = "RATE", description = "Fault matrix: one case per S3 fault (bursts of"
            + " 503 SlowDown, reset mid-body, stalled body, truncated body, slow first byte), each on RATE of the ranged"
            + " GETs, through the testkit's fault proxy.")
    Double s3Faults;

    @Option(names = "--partition", description = "Fault matrix: one node cut off from its peers (blackholed) mid-run,"
            + " and one cut off from S3.")
    boolean partition;

    @Option(names = "--partition-s3", description = "Fault matrix: only the node cut off from S3 (the second case of"
            + " --partition).")
    boolean partitionS3;

    @Option(names = "--replace-object", description = "Fault matrix: the object overwritten in S3 mid-run.")
    boolean replaceObject;

    @Option(names = "--deny-access", description = "Fault matrix: S3 answers 403 AccessDenied to every request.")
    boolean denyAccess;

    @Option(names = "--all-faults", description = "Fault matrix: every case, with --kill 0.25 --restart"
            + " --corrupt-peers 1 --lying-peers 1 --stranger --s3-faults 0.05 unless given.")
    boolean allFaults;

    @Option(names = "--s3-rate", paramLabel = "BYTES", converter = ByteSize.Converter.class, defaultValue = "16MiB",
            description = "Fault matrix: the S3 proxy's aggregate rate per second, so a run lasts long enough for a"
                    + " fault to strike mid-run (default: ${DEFAULT-VALUE}).")
    long s3Rate;

    /** The fault matrix's cases the options ask for, in the order of docs/reliability.md. */
    private List<FaultCase> faultCases(ChaosContext c) {
        if (allFaults) {
            kill = kill != null ? kill : 0.25;
            restart = true;
            corruptPeers = corruptPeers != null ? corruptPeers : 1;
            lyingPeers = lyingPeers != null ? lyingPeers : 1;
            stranger = true;
            s3Faults = s3Faults != null ? s3Faults : 0.05;
            partition = replaceObject = denyAccess = true;
        }
        List<FaultCase> cases = new ArrayList<>();
        if (kill != null) {
            cases.add(FaultCases.kill(kill, false));
            if (restart) {
                cases.add(FaultCases.kill(kill, true));
            }
        }
        if (s3Faults != null) {
            cases.addAll(FaultCases.s3Faults(s3Faults));
        }
        if (lyingPeers != null) {
            cases.add(FaultCases.lyingBitfield(lyingPeers));
        }
        if (corruptPeers != null) {
            cases.add(FaultCases.corruptMembers(corruptPeers));
        }
        if (stranger) {
            cases.add(FaultCases.stranger());
        }
        if (partition) {
            cases.addAll(FaultCases.partitions());
        } else if (partitionS3) {
            cases.add(FaultCases.partitions().get(1));
        }
        if (replaceObject) {
            cases.add(FaultCases.replaceObject(c.endpoint(), c.credentials(), c.pathStyle()));
        }
        if (denyAccess) {
            cases.add(FaultCases.denyAccess());
        }
        return cases;
    }

    @Override
    public Integer call() throws Exception {
        boolean matrix = allFaults || kill != null || corruptPeers != null || lyingPeers != null || stranger
                || s3Faults != null || partition || partitionS3 || replaceObject || denyAccess;
        List<ChaosScenario> scenarios = matrix && !spec.commandLine().getParseResult().hasMatchedOption("--scenario")
                ? List.of() : ChaosScenarios.named(scenario);
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
            if (matrix) {
                boolean allPassed = runMatrix(context, out);
                printScenarios(out, results, dir);
                return allPassed && results.stream().allMatch(ChaosResult::passed) ? 0 : 1;
            }
        }
        printScenarios(out, results, dir);
        return results.stream().allMatch(ChaosResult::passed) ? 0 : 1;
    }

    /** Runs the fault matrix's cases; prints a line per trial and one JSON line per case; true if every case passed. */
    private boolean runMatrix(ChaosContext context, PrintWriter out) throws Exception {
        List<FaultCase> cases = faultCases(context);
        List<MatrixResult> results = new ArrayList<>();
        try (FaultMatrix m = new FaultMatrix(context, s3Rate, trials, nodeTimeout, 7)) {
            for (FaultCase c : cases) {
                out.printf(Locale.ROOT, "fault case %s: %s; %d trials of %d nodes%n", c.name(), c.description(), trials,
                        nodes);
                out.flush();
                MatrixResult r = m.run(c, line -> {
                    out.println("  " + line);
                    out.flush();
                });
                results.add(r);
                out.println(Json.line(r));
                out.flush();
            }
        }
        out.printf(Locale.ROOT, "%n%-20s %6s %11s %6s %8s %9s %-40s %s%n", "case", "trials", "completed", "wrong",
                "partial", "leftover", "errors by kind", "detect s (median/max)");
        for (MatrixResult r : results) {
            out.printf(Locale.ROOT, "%-20s %6d %5d/%-5d %6d %8d %9d %-40s %s/%s%n", r.faultCase(), r.trials(),
                    r.completed(), r.couldComplete(), r.wrongBytes(), r.partialFiles(), r.leftoverFiles(),
                    r.errorsByKind(), r.detectSeconds().median(), r.detectSeconds().max());
        }
        out.flush();
        return results.stream().allMatch(MatrixResult::passed);
    }

    private static void printScenarios(PrintWriter out, List<ChaosResult> results, Path dir) {
        if (results.isEmpty()) {
            out.printf(Locale.ROOT, "(node logs under %s)%n", dir);
            out.flush();
            return;
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
