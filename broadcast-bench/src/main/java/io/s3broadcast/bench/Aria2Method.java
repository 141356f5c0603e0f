package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * aria2c, the off-the-shelf parallel downloader, as a contender of {@code single}: one process per download,
 * {@code -x C -s C} ranged GETs of at least 1 MiB each of a presigned URL (aria2c does not sign requests). Its
 * time is the process's, from its start (a few milliseconds) to its exit, plus the fsync of the file (made here,
 * as ours makes its file durable); presigning the URL is not in it.
 */
final class Aria2Method implements DownloadMethod {

    static final String NAME = "aria2";
    private static final long MIN_SPLIT = 1 << 20;

    private final Endpoint endpoint;
    private final int connections;
    private final Duration timeout;
    private final Path aria2c;
    private final Map<String, Object> settings = new LinkedHashMap<>();
    private volatile ChildProcessRun last;

    /** @throws IllegalStateException when aria2c is not installed (the message names the package) */
    Aria2Method(Endpoint endpoint, int connections, Duration timeout) {
        this.aria2c = FleetTools.find("aria2c");
        if (aria2c == null) {
            throw new IllegalStateException(FleetTools.missing("aria2c", "aria2"));
        }
        this.endpoint = endpoint;
        this.connections = Math.min(16, connections);
        this.timeout = timeout;
        settings.put("tool", "aria2c, a presigned URL");
        settings.put("connections", this.connections);
        settings.put("split", this.connections);
        settings.put("minSplitSize", MIN_SPLIT);
        settings.put("verifies", "nothing (the bench checks the SHA-256 afterwards, untimed)");
    }

    /** aria2c's command line for one download (16 connections at most: aria2c's own limit per server). */
    List<String> command(String url, Path destination) {
        return List.of(aria2c.toString(), "--quiet=true", "--allow-overwrite=true", "--auto-file-renaming=false",
                "--file-allocation=none", "--check-certificate=false", "--max-connection-per-server=" + connections,
                "--split=" + connections, "--min-split-size=" + MIN_SPLIT, "--max-tries=5",
                "--dir=" + destination.toAbsolutePath().getParent(), "--out=" + destination.getFileName(), url);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Object> settings() {
        return settings;
    }

    @Override
    public long download(String bucket, String key, Path destination) throws IOException, InterruptedException {
        String url = FleetBaselines.presign(endpoint, bucket, key, timeout.plusHours(1));
        Path log = destination.resolveSibling(destination.getFileName() + ".aria2.log");
        ProcessBuilder pb = new ProcessBuilder(command(url, destination)).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        try {
            FleetProcesses.Result r = FleetProcesses.runAll(List.of(pb), timeout, (i, result) -> result).get(0);
            if (r.seconds() == null || r.exitCode() != 0) {
                throw new IOException("aria2c " + (r.seconds() == null ? "did not finish in " + timeout
                        : "exited with " + r.exitCode()) + ": " + FleetProcesses.tail(log));
            }
            long synced = System.nanoTime();
            Durability.fsync(destination);
            double fsyncSeconds = (System.nanoTime() - synced) / 1e9;
            last = new ChildProcessRun(r.seconds() + fsyncSeconds, r.seconds(), r.cpuSeconds(), r.peakRssBytes());
            return synced;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The file is fsynced here, after aria2c exits, and the fsync counted in the time. */
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
