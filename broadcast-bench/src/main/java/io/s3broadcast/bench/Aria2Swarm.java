package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code aria2-swarm} baseline: an off-the-shelf BitTorrent swarm with S3 as web seed. A single-file torrent is
 * made with mktorrent (1 MiB pieces, a per-trial source string so each trial has its own info hash) from a reference
 * copy of the object, with the object's presigned URL through the throttling proxy as web seed (BEP 19) and
 * opentracker on the bridge as tracker. aria2c runs in every namespace; a node is done when aria2c's
 * download-complete hook runs. All aria2c processes keep seeding until every node is done, then they are stopped (so
 * there is no exit time).
 */
final class Aria2Swarm {

    /**
     * aria2c's download-complete hook: the time (epoch ms) into {@code done} beside the file (its third argument),
     * written to a temporary name and renamed, so the bench, polling for {@code done}, never reads it half written.
     */
    static final String DONE_HOOK = "#!/bin/sh\nd=\"$(dirname \"$3\")\"\n"
            + "date +%s%3N > \"$d/done.tmp\" && mv \"$d/done.tmp\" \"$d/done\"\n";

    private static final Logger LOG = LoggerFactory.getLogger(Aria2Swarm.class);
    static final int TRACKER_PORT = 6969;
    static final int PIECE_LENGTH_LOG2 = 20;

    private Aria2Swarm() {
    }

    static List<FleetNode> run(NetnsFleet fleet, FleetCommand.FleetSpec spec, Testbed testbed, Path dir, int trial)
            throws IOException, InterruptedException {
        Path reference = fleet.reference();
        String tracker = "http://" + Namespaces.BRIDGE_ADDRESS + ":" + TRACKER_PORT + "/announce";
        String webSeed = FleetBaselines.presign(fleet.endpoint(), testbed.bucket(), testbed.key(), Duration.ofHours(12));
        Path torrent = dir.resolve("object.torrent");
        Namespaces.run(List.of(FleetTools.find("mktorrent").toString(), "-a", tracker, "-w", webSeed,
                "-l", String.valueOf(PIECE_LENGTH_LOG2), "-s", "s3bf-trial-" + trial + "-" + System.nanoTime(),
                "-n", "object.bin", "-o", torrent.toString(), reference.toString()), false);
        fleet.startTracker(TorrentInfoHash.of(torrent));
        Path hook = dir.resolve("done.sh");
        Files.writeString(hook, DONE_HOOK);
        Files.setPosixFilePermissions(hook, PosixFilePermissions.fromString("rwxr-xr-x"));
        int n = spec.nodes();
        List<Process> processes = new ArrayList<>();
        List<Path> nodeDirs = new ArrayList<>();
        long t0Millis = System.currentTimeMillis();
        long t0 = System.nanoTime();
        fleet.started(t0Millis);
        try {
            for (int i = 0; i < n; i++) {
                Path nodeDir = Files.createDirectories(dir.resolve("node-" + i));
                nodeDirs.add(nodeDir);
                List<String> cmd = List.of(FleetTools.find("aria2c").toString(), "--quiet=true", "--enable-dht=false",
                        "--enable-dht6=false", "--bt-enable-lpd=false", "--enable-peer-exchange=true",
                        "--bt-tracker-interval=1", "--seed-time=60", "--seed-ratio=0.0", "--file-allocation=none",
                        "--allow-overwrite=true", "--auto-file-renaming=false", "--check-certificate=false",
                        "--bt-hash-check-seed=false", "--on-bt-download-complete=" + hook, "--dir=" + nodeDir,
                        torrent.toString());
                ProcessBuilder pb = fleet.launch(i, cmd).redirectErrorStream(true)
                        .redirectOutput(nodeDir.resolve("aria2.log").toFile());
                Process p = pb.start();
                fleet.namespaces().limitCpu(i, p.pid());
                processes.add(p);
            }
            double[] cpu = new double[n];
            long[] rss = new long[n];
            long deadline = t0 + spec.timeout().toNanos();
            while (true) {
                int done = 0;
                for (int i = 0; i < n; i++) {
                    Process p = processes.get(i);
                    if (p.isAlive()) {
                        double c = FleetProcesses.cpuSeconds(p.pid());
                        cpu[i] = c >= 0 ? c : cpu[i];
                        rss[i] = Math.max(rss[i], FleetProcesses.peakRss(p.pid()));
                    }
                    if (Files.exists(nodeDirs.get(i).resolve("done")) || !p.isAlive()) {
                        done++;
                    }
                }
                if (done == n || System.nanoTime() > deadline) {
                    break;
                }
                processes.get(0).waitFor(100, TimeUnit.MILLISECONDS);
            }
            List<FleetNode> nodes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Path nodeDir = nodeDirs.get(i);
                Path file = nodeDir.resolve("object.bin");
                Path doneFile = nodeDir.resolve("done");
                Double seconds = null;
                String error = null;
                if (Files.exists(doneFile)) {
                    seconds = SingleCommand.round((Long.parseLong(Files.readString(doneFile).trim()) - t0Millis) / 1e3, 3);
                } else {
                    error = processes.get(i).isAlive() ? "not done at the timeout"
                            : "aria2c exited with " + processes.get(i).exitValue() + ": "
                                    + FleetProcesses.tail(nodeDir.resolve("aria2.log"));
                }
                boolean ok = seconds != null && Files.exists(file) && Sha256.of(file).equals(testbed.sha256());
                if (seconds != null && !ok) {
                    error = "SHA-256 mismatch";
                }
                nodes.add(new FleetNode(i, "aria2-" + i, spec.links().get(i).describe(), seconds, null, null, null, 0,
                        null, null, null, SingleCommand.round(cpu[i], 2), null, null, rss[i] > 0 ? rss[i] : null, ok,
                        error));
            }
            LOG.info("aria2-swarm trial {}: every node done or timed out after {} s", trial,
                    SingleCommand.round((System.nanoTime() - t0) / 1e9, 3));
            return nodes;
        } finally {
            for (Process p : processes) {
                p.destroy();
            }
            for (Process p : processes) {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }
}
