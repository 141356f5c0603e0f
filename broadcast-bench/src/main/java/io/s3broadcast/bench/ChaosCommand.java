package io.s3broadcast.bench;

import io.s3broadcast.bench.chaos.ChaosContext;
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
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * {@code chaos}: adversarial scenarios against real {@code node} processes (one JVM each) on an S3Proxy started in
 * this JVM; prints a table and one JSON line per scenario, and exits 1 if any defence did not hold.
 */
@Command(name = "chaos",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "%nStarts S3Proxy in this JVM with a seeded random object of --size bytes, then for each scenario starts"
                    + " --nodes honest `node` processes (one JVM each, a static registry on loopback, a random group"
                    + " secret in S3BROADCAST_SECRET) and attacks them from this process. Scenarios: stranger (no"
                    + " secret), wrong-secret, tls-untrusted (nodes on mutual TLS; the adversary has the secret but"
                    + " no trusted certificate), half-open (300 connections that never finish a handshake).",
            "%nEach scenario prints one JSON line: scenario, nodes, bytes of the object the adversary received,"
                    + " bitfields and other metadata it received, connections held open after the handshake timeout,"
                    + " whether every honest node published the exact object, time. Exit code 1 if any failed.",
        },
        footerHeading = "%nExample:%n",
        footer = "  java -jar broadcast-bench.jar chaos --scenario all --nodes 2 --size 16MiB")
final class ChaosCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--scenario", paramLabel = "NAME", defaultValue = "all",
            description = "stranger, wrong-secret, tls-untrusted, half-open or all (default: ${DEFAULT-VALUE}).")
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
            try (S3AsyncClient s3 = e.nettyClient(4).build()) {
                eTag = s3.headObject(b -> b.bucket(testbed.bucket()).key(testbed.key())).join().eTag();
            }
            Map<String, String> env = new HashMap<>();
            AwsCredentials c = e.credentials().resolveCredentials();
            env.put("AWS_ACCESS_KEY_ID", c.accessKeyId());
            env.put("AWS_SECRET_ACCESS_KEY", c.secretAccessKey());
            if (c instanceof AwsSessionCredentials session) {
                env.put("AWS_SESSION_TOKEN", session.sessionToken());
            }
            env.put("AWS_REGION", e.region().id());
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"), BenchCli.class.getName());
            ChaosContext context = new ChaosContext(e.uri(), e.region().id(), env, e.pathStyle(), testbed.bucket(),
                    testbed.key(), eTag, testbed.size(), testbed.sha256(), nodes, handshakeTimeout, nodeTimeout, dir,
                    command);
            for (ChaosScenario s : scenarios) {
                out.printf(Locale.ROOT, "running %s: %s%n", s.name(), s.description());
                out.flush();
                ChaosResult r = s.run(context);
                results.add(r);
                out.println(Json.line(r));
                out.flush();
            }
        }
        out.printf(Locale.ROOT, "%n%-14s %5s %8s %14s %9s %8s %9s %10s %8s %6s%n", "scenario", "nodes", "attempts",
                "object bytes", "bitfields", "metadata", "held open", "byte-exact", "seconds", "passed");
        for (ChaosResult r : results) {
            out.printf(Locale.ROOT, "%-14s %5d %8d %14d %9d %8d %9d %10s %8.1f %6s%n", r.scenario(), r.nodes(),
                    r.attempts(), r.adversaryObjectBytes(), r.bitfieldsReceived(), r.metadataReceived(),
                    r.connectionsHeldOpen(), r.honestByteExact() ? "yes" : "NO", r.seconds(), r.passed() ? "yes" : "NO");
        }
        out.printf(Locale.ROOT, "(node logs under %s)%n", dir);
        out.flush();
        return results.stream().allMatch(ChaosResult::passed) ? 0 : 1;
    }
}
