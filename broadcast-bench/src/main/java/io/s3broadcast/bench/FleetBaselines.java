package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/** The fleet's baselines: what users run today, on the same links and the same throttled S3. */
final class FleetBaselines {

    private static final Logger LOG = LoggerFactory.getLogger(FleetBaselines.class);
    static final long DEFAULT_PART = 32L << 20;
    static final int DEFAULT_CONNECTIONS = 16;

    private FleetBaselines() {
    }

    /** How a node's process is started: the command as it runs on the node (e.g. inside its namespace). */
    interface Launcher {
        ProcessBuilder start(int node, List<String> command);
    }

    /**
     * The AWS S3 Transfer Manager on every node, in this JVM (the flat tree a Java user would write): each node's client
     * talks to its own proxy port, so its download link applies. Connections and part size as our nodes' (16 and 32 MiB
     * unless --connections / --range-size).
     */
    static List<FleetNode> transferManager(InProcessFleet fleet, FleetCommand.FleetSpec spec, Testbed testbed, Path dir,
            int trial) throws IOException, InterruptedException {
        int n = spec.nodes();
        Tuning tuning = new Tuning(spec.tuning().connections != null ? spec.tuning().connections : DEFAULT_CONNECTIONS,
                spec.tuning().rangeSize != null ? spec.tuning().rangeSize : DEFAULT_PART, null, null, null);
        Path trialDir = Files.createDirectories(dir.resolve("transfer-manager-" + trial));
        List<TransferManagerMethod> methods = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                methods.add(new TransferManagerMethod(fleet.endpointOf(i), tuning));
            }
            long[] ended = new long[n];
            String[] errors = new String[n];
            CountDownLatch gun = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                int node = i;
                Thread t = new Thread(() -> {
                    try {
                        gun.await();
                        methods.get(node).download(testbed.bucket(), testbed.key(), trialDir.resolve("node-" + node + ".bin"));
                        ended[node] = System.nanoTime();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        errors[node] = "interrupted";
                    } catch (RuntimeException e) {
                        errors[node] = e.toString();
                    } finally {
                        done.countDown();
                    }
                }, "tm-node-" + i);
                t.setDaemon(true);
                t.start();
            }
            long start = System.nanoTime();
            fleet.started(System.currentTimeMillis());
            gun.countDown();
            if (!done.await(spec.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("transfer-manager trial {} still running after {}", trial, spec.timeout());
            }
            List<FleetNode> nodes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Path file = trialDir.resolve("node-" + i + ".bin");
                boolean ok = errors[i] == null && ended[i] != 0 && Sha256.of(file).equals(testbed.sha256());
                String error = errors[i] != null ? errors[i] : ended[i] == 0 ? "timed out" : ok ? null : "SHA-256 mismatch";
                nodes.add(new FleetNode(i, "tm-" + i, spec.links().get(i).describe(),
                        ended[i] == 0 ? null : SingleCommand.round((ended[i] - start) / 1e9, 3), null, null, null, 0, null,
                        0L, null, null, null, null, null, ok, error));
                Files.deleteIfExists(file);
            }
            return nodes;
        } finally {
            for (TransferManagerMethod m : methods) {
                m.close();
            }
            FleetFiles.deleteTree(trialDir);
        }
    }

    /**
     * aria2c on every node, each a process downloading the whole object with ranged GETs from a presigned URL of its
     * node's S3 endpoint (aria2c does not sign requests): the flat tree with an off-the-shelf downloader.
     */
    static List<FleetNode> aria2Flat(IntFunction<Endpoint> endpoints, FleetCommand.FleetSpec spec, Testbed testbed,
            Path dir, int trial, Launcher launcher) throws IOException, InterruptedException {
        int n = spec.nodes();
        Path trialDir = Files.createDirectories(dir.resolve("aria2-flat-" + trial));
        long part = spec.tuning().rangeSize != null ? spec.tuning().rangeSize : DEFAULT_PART;
        int connections = Math.min(16, spec.tuning().connections != null ? spec.tuning().connections : DEFAULT_CONNECTIONS);
        List<ProcessBuilder> builders = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path nodeDir = Files.createDirectories(trialDir.resolve("node-" + i));
            String url = presign(endpoints.apply(i), testbed.bucket(), testbed.key(), Duration.ofHours(2));
            List<String> cmd = List.of(FleetTools.find("aria2c").toString(), "--quiet=true", "--allow-overwrite=true",
                    "--auto-file-renaming=false", "--file-allocation=none", "--check-certificate=false",
                    "--max-connection-per-server=" + connections, "--split=" + connections,
                    "--min-split-size=" + Math.max(1 << 20, Math.min(part, 1L << 30)), "--max-tries=5",
                    "--dir=" + nodeDir, "--out=object.bin", url);
            ProcessBuilder pb = launcher != null ? launcher.start(i, cmd) : new ProcessBuilder(cmd);
            pb.redirectErrorStream(true).redirectOutput(nodeDir.resolve("aria2.log").toFile());
            builders.add(pb);
        }
        try {
            return FleetProcesses.runAll(builders, spec.timeout(), (i, result) -> {
                Path file = trialDir.resolve("node-" + i).resolve("object.bin");
                boolean ok = result.exitCode() == 0 && Files.exists(file) && Sha256.of(file).equals(testbed.sha256());
                String error = result.exitCode() != 0 ? "aria2c exited with " + result.exitCode() + ": "
                        + FleetProcesses.tail(trialDir.resolve("node-" + i).resolve("aria2.log"))
                        : ok ? null : "SHA-256 mismatch";
                return new FleetNode(i, "aria2-" + i, spec.links().get(i).describe(), result.seconds(), result.seconds(),
                        null, null, 0, null, 0L, null, result.cpuSeconds(), null, null, result.peakRssBytes(), ok, error);
            });
        } finally {
            FleetFiles.deleteTree(trialDir);
        }
    }

    /** A GET URL for the object at {@code endpoint}, signed with its credentials (SigV4 query string). */
    static String presign(Endpoint endpoint, String bucket, String key, Duration valid) {
        try (S3Presigner presigner = S3Presigner.builder()
                .endpointOverride(endpoint.uri())
                .region(endpoint.region())
                .credentialsProvider(endpoint.credentials())
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(endpoint.pathStyle()).build())
                .build()) {
            return presigner.presignGetObject(b -> b.signatureDuration(valid).getObjectRequest(g -> g.bucket(bucket).key(key)))
                    .url().toString();
        }
    }

}
