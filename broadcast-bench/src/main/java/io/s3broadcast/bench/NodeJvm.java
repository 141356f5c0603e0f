package io.s3broadcast.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * How the bench launches a node JVM (the {@code node} command in a process of its own): this JVM's {@code java}
 * and class path, lean flags, and the class-data archive's flags when there is one ({@link ClassDataArchive}).
 */
final class NodeJvm {

    /**
     * C1 only with one compiler thread, serial GC, small heap and stacks, no perf-data file: measured in
     * docs/bench.md ("Node JVMs"). C1 has no SHA-256 intrinsic, so hashing is slow in a node JVM: the bench hashes
     * a node's file itself, after the node exits.
     */
    static final List<String> FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-XX:+UseSerialGC",
            "-Xms64m", "-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-Xss512k", "-XX:-UsePerfData");

    private NodeJvm() {
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
     * The class-data archive for node JVMs in {@code cacheDir}; its training run gets the environment {@code env}
     * makes (credentials) and a group secret of its own.
     */
    static ClassDataArchive archive(Path cacheDir, Consumer<Map<String, String>> env) {
        return new ClassDataArchive(cacheDir, java(), classPath(), FLAGS, (command, log) -> {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            env.accept(pb.environment());
            pb.environment().put("S3BROADCAST_SECRET", HexFormat.of().formatHex(new SecureRandom().generateSeed(16)));
            return pb.start().waitFor();
        });
    }

    /**
     * A node command that loads what a fleet's node loads, for the archive's training run: the testbed's object
     * fetched by a cluster of one (overlap, a static registry of itself on a free loopback port), so the S3 client,
     * the peer server and the engine's classes are all in the archive. Its file goes into {@code out}.
     */
    static List<String> trainingArgs(Testbed testbed, Path out) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String self = "127.0.0.1:" + port;
        return List.of("node", "--endpoint", testbed.endpoint().uri().toString(), "--path-style",
                String.valueOf(testbed.endpoint().pathStyle()), "--region", testbed.endpoint().region().id(),
                "--bucket", testbed.bucket(), "--key", testbed.key(), "--out", out.toString(), "--no-sha256",
                "--strategy", "overlap", "--registry", "static:" + self, "--listen", self, "--advertised-host",
                "127.0.0.1", "--node-id", self, "--expect", "1", "--linger", "0s");
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
