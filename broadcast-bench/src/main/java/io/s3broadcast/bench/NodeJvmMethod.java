package io.s3broadcast.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A download in a fresh JVM per trial ({@code single --fresh-jvm}): a node JVM ({@link NodeJvm}: the flags and
 * class-data archive a fleet's nodes get) runs the {@code node} command, so every trial is the first download of a
 * new JVM, JIT warm-up included. {@link Kind#OURS} runs {@code Broadcast.fetch} with the flat tree;
 * {@link Kind#TRANSFER_MANAGER} the Transfer Manager's {@code downloadFile} on the CRT-based S3 client (the
 * {@code node --method transfer-manager} of a fleet's baseline), with the part size and connections the in-process
 * {@link TransferManagerMethod} gets. Its time is the download as the node timed it (after the JVM started and
 * built its client, until the file is durable: ours verified and in place, the Transfer Manager's fsynced); the
 * whole process's time and CPU are reported beside it.
 */
final class NodeJvmMethod implements DownloadMethod {

    /** What the node JVM runs. */
    enum Kind {
        OURS(BroadcastMethod.NAME, "ours"),
        TRANSFER_MANAGER(TransferManagerMethod.NAME, "transfer-manager");

        private final String methodName;
        private final String nodeMethod;

        Kind(String methodName, String nodeMethod) {
            this.methodName = methodName;
            this.nodeMethod = nodeMethod;
        }
    }

    private final Kind kind;
    private final Endpoint endpoint;
    private final Tuning tuning;
    private final List<String> archiveFlags;
    private final List<String> extraOptions;
    private final Path logDir;
    private final Duration timeout;
    private final Map<String, Object> settings = new LinkedHashMap<>();
    private volatile ChildProcessRun last;

    /**
     * @param extraOptions more options for the node JVMs, after their flags and the archive's
     * @param logDir where each node JVM's stdout and stderr are kept, or null to delete them
     */
    NodeJvmMethod(Kind kind, Endpoint endpoint, Tuning tuning, List<String> archiveFlags, List<String> extraOptions,
            Path logDir, Duration timeout) {
        this.kind = kind;
        this.endpoint = endpoint;
        this.tuning = tuning;
        this.archiveFlags = List.copyOf(archiveFlags);
        this.extraOptions = List.copyOf(extraOptions);
        this.logDir = logDir;
        this.timeout = timeout;
        if (kind == Kind.OURS) {
            settings.put("api", "Broadcast.fetch (flat tree) in a fresh node JVM per download");
        } else {
            settings.put("api", "S3TransferManager.downloadFile on S3AsyncClient.crtBuilder() in a fresh node JVM per"
                    + " download");
        }
        settings.put("jvmFlags", String.join(" ", NodeJvm.FLAGS));
        if (!extraOptions.isEmpty()) {
            settings.put("extraJvmOptions", String.join(" ", extraOptions));
        }
        settings.put("classDataArchive", !archiveFlags.isEmpty());
        if (kind == Kind.OURS) {
            settings.put("httpClient", tuning.httpClient() != null ? tuning.httpClient() : "default");
            settings.put("connections", tuning.connections() != null ? tuning.connections() : "default");
            settings.put("rangeSize", tuning.rangeSize() != null ? tuning.rangeSize() : "default");
            settings.put("pieceSize", tuning.pieceSize() != null ? tuning.pieceSize() : "default");
            settings.put("verifies", "every piece's CRC32C while writing, S3's checksum as pieces land");
        } else {
            settings.put("maxConcurrency", transferManagerConnections());
            settings.put("minimumPartSizeBytes", transferManagerPartSize());
            settings.put("checksumValidation", false);
            settings.put("verifies", "nothing (the bench checks the SHA-256 afterwards, untimed)");
        }
    }

    private int transferManagerConnections() {
        return tuning.connections() != null ? tuning.connections() : FleetBaselines.DEFAULT_CONNECTIONS;
    }

    private long transferManagerPartSize() {
        return tuning.rangeSize() != null ? tuning.rangeSize() : TransferManagerMethod.DEFAULT_PART_SIZE;
    }

    /** The node command's arguments for one download of {@code s3://bucket/key} into {@code dir}. */
    List<String> nodeArgs(String bucket, String key, Path dir) {
        List<String> args = new ArrayList<>(List.of("node", "--bucket", bucket, "--key", key, "--out", dir.toString(),
                "--no-sha256", "--method", kind.nodeMethod, "--node-id", "single", "--region", endpoint.region().id()));
        if (endpoint.uri() != null) {
            args.addAll(List.of("--endpoint", endpoint.uri().toString(), "--path-style",
                    String.valueOf(endpoint.pathStyle())));
        }
        if (kind == Kind.TRANSFER_MANAGER) {
            args.addAll(List.of("--connections", String.valueOf(transferManagerConnections()), "--range-size",
                    String.valueOf(transferManagerPartSize())));
            return args;
        }
        args.addAll(List.of("--strategy", "flat"));
        if (tuning.connections() != null) {
            args.addAll(List.of("--connections", String.valueOf(tuning.connections())));
        }
        if (tuning.rangeSize() != null) {
            args.addAll(List.of("--range-size", String.valueOf(tuning.rangeSize())));
        }
        if (tuning.pieceSize() != null) {
            args.addAll(List.of("--piece-size", String.valueOf(tuning.pieceSize())));
        }
        if (tuning.httpClient() != null) {
            args.addAll(List.of("--http-client", tuning.httpClient()));
        }
        return args;
    }

    @Override
    public String name() {
        return kind.methodName;
    }

    @Override
    public Map<String, Object> settings() {
        return settings;
    }

    @Override
    public long download(String bucket, String key, Path destination) throws IOException, InterruptedException {
        Path dir = destination.resolveSibling(destination.getFileName() + ".node");
        Files.createDirectories(dir);
        try {
            List<String> jvm = new ArrayList<>(archiveFlags);
            jvm.addAll(extraOptions);
            ProcessBuilder pb = new ProcessBuilder(NodeJvm.command(jvm, nodeArgs(bucket, key, dir)))
                    .redirectOutput(dir.resolve("stdout").toFile()).redirectError(dir.resolve("stderr").toFile());
            NodeJvm.environment(endpoint, pb.environment());
            FleetProcesses.Result r = FleetProcesses.runAll(List.of(pb), timeout, (i, result) -> result).get(0);
            keepLogs(dir, destination);
            JsonNode json = Json.lastLine(dir.resolve("stdout"));
            if (r.seconds() == null || r.exitCode() != 0 || json == null || !json.path("error").isNull()) {
                throw new IOException("the node JVM " + (r.seconds() == null ? "did not finish in " + timeout
                        : "exited with " + r.exitCode()) + (json != null && !json.path("error").isNull()
                        ? ": " + json.path("error").asText() : ": " + FleetProcesses.tail(dir.resolve("stderr"))));
            }
            Files.move(dir.resolve(NodeCommand.fileName(key)), destination, StandardCopyOption.ATOMIC_MOVE);
            JsonNode build = json.path("process").path("buildSeconds");
            last = new ChildProcessRun(json.path("seconds").asDouble(), r.seconds(), r.cpuSeconds(), r.peakRssBytes(),
                    build.isNumber() ? build.asDouble() : null);
            return System.nanoTime();
        } finally {
            FleetFiles.deleteTree(dir);
        }
    }

    private void keepLogs(Path dir, Path destination) throws IOException {
        if (logDir == null) {
            return;
        }
        Files.createDirectories(logDir);
        for (String stream : List.of("stdout", "stderr")) {
            Files.copy(dir.resolve(stream), logDir.resolve(destination.getFileName() + "." + stream),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * {@code Broadcast.fetch} fsyncs the file and its directory before it renames the file into place; the node's
     * Transfer Manager fsyncs both inside its time.
     */
    @Override
    public boolean syncsToDisk() {
        return true;
    }

    @Override
    public ChildProcessRun lastProcess() {
        return last;
    }

    @Override
    public void close() {
    }
}
