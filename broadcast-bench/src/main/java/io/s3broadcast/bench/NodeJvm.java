package io.s3broadcast.bench;

import io.s3broadcast.testkit.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * How the bench launches a node JVM (the {@code node} command in a process of its own): this JVM's {@code java}
 * and class path, lean flags, and the class-data archive's flags when there is one ({@link ClassDataArchive}).
 */
final class NodeJvm {

    private static final Logger LOG = LoggerFactory.getLogger(NodeJvm.class);

    /**
     * The compiler directives of a node JVM: C2 compiles only the JDK's digests (SHA-256 of every piece, MD5 of an
     * ETag), whose SHA and MD5 intrinsics only C2 has; every other method stays with C1 (a C2 compile it reaches is
     * excluded, and C1 compiles it again without profiling).
     */
    static final String JIT_DIRECTIVES = """
            [
              { match: ["sun/security/provider/SHA2.*", "sun/security/provider/DigestBase.*", \
            "sun/security/provider/MD5.*"], c2: { Exclude: false } },
              { match: "*.*", c2: { Exclude: true } }
            ]
            """;

    /**
     * Serial GC, small heap and stacks, no perf-data file, and lean JIT: tiered, but C2 only for the digests
     * ({@link #JIT_DIRECTIVES}; the directives' "added" line goes to stderr with the VM's other output, so stdout
     * keeps only the node's table and JSON line) and reached after a fiftieth of the usual calls (so the first
     * pieces are not hashed in the interpreter while the compile waits), C1 compiling every other method later than
     * by default (tier-3 thresholds raised). Measured in docs/bench.md ("Node JVMs"). From JDK 22, native access for
     * the class path (CRT loads its library). Without a directives file (the temporary directory is not
     * writable) the flags are the earlier C1-only ones, where SHA-256 runs without its intrinsic. Last, CRT's native
     * library extracted once ({@link CrtNativeLibrary}) on the library path, so a node JVM does not extract it again.
     */
    static final List<String> FLAGS = flags();

    /**
     * From JDK 22 a JVM warns on stderr when code on the class path loads a native library (CRT does) unless native
     * access is enabled for it.
     */
    private static final int NATIVE_ACCESS_WARNS_SINCE = 22;

    /** How long a training node serves its peer once done, at most (it exits as soon as the peer is done too). */
    static final Duration TRAINING_LINGER = Duration.ofSeconds(10);

    private NodeJvm() {
    }

    private static List<String> flags() {
        List<String> common = List.of("-XX:+UseSerialGC", "-Xms64m", "-Xmx256m", "-XX:MaxDirectMemorySize=256m",
                "-Xss512k", "-XX:-UsePerfData");
        List<String> flags = new ArrayList<>();
        try {
            Path directives = directivesFile(Path.of(System.getProperty("java.io.tmpdir")));
            flags.addAll(List.of("-XX:CICompilerCount=2", "-XX:+UnlockDiagnosticVMOptions",
                    "-XX:CompilerDirectivesFile=" + directives, "-XX:+DisplayVMOutputToStderr",
                    "-XX:CompileCommand=quiet",
                    "-XX:CompileCommand=CompileThresholdScaling,sun.security.provider.SHA2::*,0.02",
                    "-XX:CompileCommand=CompileThresholdScaling,sun.security.provider.DigestBase::*,0.02",
                    "-XX:CompileCommand=CompileThresholdScaling,sun.security.provider.MD5::*,0.02",
                    "-XX:Tier3InvocationThreshold=2000", "-XX:Tier3MinInvocationThreshold=1000",
                    "-XX:Tier3CompileThreshold=20000", "-XX:Tier3BackEdgeThreshold=600000"));
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("cannot write the node JVMs' compiler directives ({}); node JVMs run C1 only", e.toString());
            flags.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1"));
        }
        flags.addAll(common);
        if (Runtime.version().feature() >= NATIVE_ACCESS_WARNS_SINCE) {
            flags.add("--enable-native-access=ALL-UNNAMED");
        }
        flags.addAll(CrtNativeLibrary.flags(Path.of(System.getProperty("java.io.tmpdir"))));
        return List.copyOf(flags);
    }

    /**
     * {@link #JIT_DIRECTIVES} in {@code dir}, under a name made from its content (so concurrent benches and other
     * versions share or keep their own), written once by an atomic rename.
     */
    static Path directivesFile(Path dir) throws IOException {
        byte[] content = JIT_DIRECTIVES.getBytes(StandardCharsets.UTF_8);
        String name;
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(content);
            name = "s3broadcast-node-jit-" + HexFormat.of().formatHex(d, 0, 8) + ".json";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no SHA-256", e);
        }
        Path file = dir.resolve(name);
        if (Files.isRegularFile(file) && Arrays.equals(Files.readAllBytes(file), content)) {
            return file;
        }
        Path temp = Files.createTempFile(dir, name, ".tmp");
        try {
            Files.write(temp, content);
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
        return file;
    }

    /** This JVM's {@code java} executable. */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** This JVM's class path (the bench jar when run with {@code -jar}). */
    static String classPath() {
        return System.getProperty("java.class.path");
    }

    /**
     * The class-data archive for node JVMs in {@code cacheDir}; its training run and the peer beside it get the
     * environment {@code env} makes (credentials) and one group secret of their own.
     */
    static ClassDataArchive archive(Path cacheDir, Consumer<Map<String, String>> env) {
        String secret = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        return new ClassDataArchive(cacheDir, java(), classPath(), FLAGS, ClassDataArchive.processes(e -> {
            env.accept(e);
            e.put("S3BROADCAST_SECRET", secret);
        }), ArchiveFormat.forThisJvm());
    }

    /**
     * The training run of the archive and the peer beside it ({@link ClassDataArchive#flags}): two node commands that
     * fetch the testbed's object as a cluster of two on free loopback ports (overlap, a static registry of both), so
     * the archive holds the classes, linked call sites and profiles of the S3 client, phase 1 and the exchange of
     * pieces with a peer, both ways. Each waits for the other to be done for up to {@link #TRAINING_LINGER}; their
     * files go into {@code out}.
     */
    static List<List<String>> training(Testbed testbed, Path out) throws IOException {
        List<String> ids = FreePorts.loopback(2).stream().map(port -> "127.0.0.1:" + port).toList();
        String registry = "static:" + String.join(",", ids);
        List<List<String>> runs = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            String self = ids.get(i);
            runs.add(main(List.of("node", "--endpoint", testbed.endpoint().uri().toString(), "--path-style",
                    String.valueOf(testbed.endpoint().pathStyle()), "--region", testbed.endpoint().region().id(),
                    "--bucket", testbed.bucket(), "--key", testbed.key(), "--out", out.resolve("node-" + i).toString(),
                    "--no-sha256", "--strategy", "overlap", "--registry", registry, "--listen", self,
                    "--advertised-host", "127.0.0.1", "--node-id", self, "--expect", String.valueOf(ids.size()),
                    "--linger", TRAINING_LINGER.toSeconds() + "s")));
        }
        return runs;
    }

    /** The command line of a node JVM: {@code java}, the flags, {@code archiveFlags}, the bench's main, {@code args}. */
    static List<String> command(List<String> archiveFlags, List<String> args) {
        List<String> java = new ArrayList<>();
        java.add(java());
        java.addAll(FLAGS);
        java.addAll(archiveFlags);
        java.addAll(List.of("-cp", classPath(), BenchCli.class.getName()));
        java.addAll(args);
        return java;
    }

    /** The endpoint's credentials and region as the SDK's environment variables, for a node JVM. */
    static void environment(Endpoint endpoint, Map<String, String> env) {
        env.keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("S3BROADCAST_"));
        AwsCredentials c = endpoint.credentials().resolveCredentials();
        env.put("AWS_ACCESS_KEY_ID", c.accessKeyId());
        env.put("AWS_SECRET_ACCESS_KEY", c.secretAccessKey());
        if (c instanceof AwsSessionCredentials s) {
            env.put("AWS_SESSION_TOKEN", s.sessionToken());
        }
        env.put("AWS_REGION", endpoint.region().id());
    }

    /** The arguments after the class path for a training run: the bench's main and a node command's arguments. */
    static List<String> main(List<String> nodeArgs) {
        List<String> main = new ArrayList<>();
        main.add(BenchCli.class.getName());
        main.addAll(nodeArgs);
        return main;
    }
}
