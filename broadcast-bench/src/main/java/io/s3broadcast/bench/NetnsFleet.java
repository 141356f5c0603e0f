package io.s3broadcast.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.s3broadcast.Strategy;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.testkit.proxy.FaultProxy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code fleet --level netns}: every node is its own JVM (the {@code node} command) or tool process in its own
 * network namespace ({@link Namespaces}), with its link shaped by {@code tc} in both directions. S3 is the bench's
 * S3Proxy behind the throttling proxy, which listens on the bridge and counts bytes per node address. JVM nodes
 * start fetching at one signal (a line on their stdin) once all are ready, so JVM start-up is not in the times;
 * exit times are.
 */
final class NetnsFleet implements FleetCommand.FleetLevel {

    private static final Logger LOG = LoggerFactory.getLogger(NetnsFleet.class);
    static final int PEER_PORT = 7070;

    private final FleetCommand.FleetSpec spec;
    private final Testbed testbed;
    private final Path dir;
    private final Namespaces namespaces;
    private final FaultProxy proxy;
    /** The node JVMs' class-data archive, or null for none. */
    private final ClassDataArchive archive;
    private final String secret = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
    private Path reference;
    private Process tracker;
    /** Seconds from the first node process's start to the start signal, in the last JVM trial. */
    private double startUp;
    /** With join or leave: each node's throughput samples in the last JVM trial. */
    private List<List<long[]>> samples = List.of();
    /**
     * The last trial's start signal (epoch ms): the JVM nodes' signal, aria2-swarm's start; for aria2-flat, whose
     * processes start at once, the trial's start.
     */
    private long t0Millis;
    private ChurnClock clock;
    /** Where to copy the node processes' stdout and stderr, or null. */
    private Path keepLogs;
    private List<String> nodeJvmOptions = List.of();

    private NetnsFleet(FleetCommand.FleetSpec spec, Testbed testbed, Path dir, Namespaces namespaces, FaultProxy proxy,
            Path archiveDir) {
        this.spec = spec;
        this.archive = archiveDir == null ? null : NodeJvm.archive(archiveDir, this::environment);
        this.testbed = testbed;
        this.dir = dir;
        this.namespaces = namespaces;
        this.proxy = proxy;
    }

    /** Why namespaces cannot be made here, or null when they can. */
    static String available() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return "network namespaces need Linux";
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return "creating network namespaces needs root (user is " + System.getProperty("user.name") + ")";
        }
        for (String tool : new String[] {"ip", "tc"}) {
            if (FleetTools.find(tool) == null) {
                return tool + " is not installed: apt-get install -y iproute2";
            }
        }
        return null;
    }

    static NetnsFleet open(FleetCommand.FleetSpec spec, Testbed testbed, Path dir) throws IOException,
            InterruptedException {
        return open(spec, testbed, dir, ClassDataArchive.defaultCacheDir());
    }

    /** As {@link #open(FleetCommand.FleetSpec, Testbed, Path)}, the node JVMs' class-data archive in {@code archiveDir} (null: none). */
    static NetnsFleet open(FleetCommand.FleetSpec spec, Testbed testbed, Path dir, Path archiveDir) throws IOException,
            InterruptedException {
        Namespaces ns = Namespaces.create(spec.links(), spec.latencyMillis(), spec.cpuPerNode(),
                spec.congestionControl());
        FaultProxy proxy = null;
        try {
            URI s3 = testbed.endpoint().uri();
            proxy = FaultProxy.builder(new InetSocketAddress(s3.getHost(), s3.getPort()))
                    .bindAddress(InetAddress.getByName(Namespaces.BRIDGE_ADDRESS)).profile(spec.profile())
                    .seed(spec.seed()).start();
            return new NetnsFleet(spec, testbed, dir, ns, proxy, archiveDir);
        } catch (IOException | RuntimeException e) {
            if (proxy != null) {
                proxy.close();
            }
            ns.close();
            throw e;
        }
    }

    /** Copies each node's stdout and stderr to {@code dir}/{@code <contender>-<trial>}/ (null: not kept). */
    NetnsFleet keepLogs(Path dir) {
        this.keepLogs = dir;
        return this;
    }

    /** Options for the node JVMs (ours and the Transfer Manager's) after their flags and class-data archive (a later flag wins). */
    NetnsFleet nodeJvmOptions(List<String> options) {
        this.nodeJvmOptions = List.copyOf(options);
        return this;
    }

    @Override
    public String warmUp() throws InterruptedException {
        return S3Warmup.run(endpoint(), testbed.bucket(), testbed.key(), testbed.size());
    }

    /** The endpoint every node uses: the proxy on the bridge. */
    Endpoint endpoint() {
        return testbed.endpoint().via(proxy.endpoint());
    }

    @Override
    public FleetTrial run(String contender, int trial) throws IOException, InterruptedException {
        long[] before = s3Bytes();
        startUp = 0;
        Path trialDir = Files.createDirectories(dir.resolve(contender + "-" + trial));
        List<FleetNode> nodes;
        CpuSaturation machineCpu = new CpuSaturation().start();
        LinkUse downloads = linkUse(namespaces::downloadCounter, FleetLink::down).start();
        LinkUse uploads = linkUse(namespaces::uploadCounter, FleetLink::up).start();
        t0Millis = System.currentTimeMillis();
        try {
            nodes = switch (contender) {
                case "aria2-flat" -> FleetBaselines.aria2Flat(i -> endpoint(), spec, testbed, dir, trial, this::launch);
                case "aria2-swarm" -> Aria2Swarm.run(this, spec, testbed, trialDir, trial);
                case "transfer-manager" -> jvmNodes(null, trialDir);
                default -> jvmNodes(Strategy.parse(contender), trialDir);
            };
        } finally {
            machineCpu.stop();
            downloads.stop();
            uploads.stop();
            copyLogs(trialDir);
            FleetFiles.deleteTree(trialDir);
        }
        long[] after = s3Bytes();
        List<FleetNode> counted = new ArrayList<>();
        double cpu = 0;
        Churn churn = spec.churn();
        for (FleetNode n : nodes) {
            counted.add(n.withBytesFromS3(after[n.node()] - before[n.node()]).withRole(churn.role(n.node(), spec.nodes())));
            cpu += n.cpuSeconds() != null ? n.cpuSeconds() : 0;
        }
        FleetTrial t = FleetTrial.of(trial, counted, spec.size(), cpu, Runtime.getRuntime().availableProcessors(), startUp)
                .withCpuSaturation(machineCpu, t0Millis).withLinkUse(downloads, uploads, t0Millis);
        return churn.any() ? t.withChurn(ThroughputSampler.aggregate(samples, t0Millis), clock) : t;
    }

    /**
     * The trial's reader of the nodes' {@code counter}s (download or upload); its capacity is the links' shaped
     * {@code rate}s in wire bytes, none (no figures) where a link is not shaped that way.
     */
    private LinkUse linkUse(IntFunction<Path> counter, ToLongFunction<FleetLink> rate) {
        List<Path> counters = new ArrayList<>();
        for (int i = 0; i < spec.nodes(); i++) {
            counters.add(counter.apply(i));
        }
        List<Double> capacities = new ArrayList<>();
        for (FleetLink l : spec.links()) {
            capacities.add(rate.applyAsLong(l) * Namespaces.WIRE_OVERHEAD); // not shaped: 0, not known
        }
        return new LinkUse(counters, capacities);
    }

    /** The trial's start signal was given at {@code epochMillis} (by a contender that gives its own). */
    void started(long epochMillis) {
        this.t0Millis = epochMillis;
    }

    /** A process builder for {@code command} in node {@code node}'s namespace (CPU cgroup applied after start). */
    ProcessBuilder launch(int node, List<String> command) {
        return new ProcessBuilder(namespaces.inNamespace(node, command));
    }

    Namespaces namespaces() {
        return namespaces;
    }

    FaultProxy proxy() {
        return proxy;
    }

    /** Our nodes (strategy) or the Transfer Manager (null) as node JVMs, started at one signal. */
    private List<FleetNode> jvmNodes(Strategy strategy, Path trialDir) throws IOException, InterruptedException {
        int n = spec.nodes();
        boolean cluster = strategy != null && strategy.isCluster();
        Churn churn = cluster ? spec.churn() : Churn.NONE;
        StringBuilder registry = new StringBuilder("static:");
        for (int i = 0; i < n; i++) {
            registry.append(i == 0 ? "" : ",").append(Namespaces.address(i)).append(':').append(PEER_PORT);
        }
        if (churn.join() > 0) {
            // A static list has every member from the start; a joiner must find the group complete to join late.
            registry = new StringBuilder("s3://" + testbed.bucket() + "/s3b-registry/" + trialDir.getFileName() + "-"
                    + HexFormat.of().formatHex(new SecureRandom().generateSeed(4)));
        }
        List<String> archiveFlags = archiveFlags();
        List<Process> processes = new ArrayList<>();
        List<Path> outs = new ArrayList<>();
        long launched = System.nanoTime();
        try {
            for (int i = 0; i < n; i++) {
                Path nodeDir = Files.createDirectories(trialDir.resolve("node-" + i));
                List<String> args = new ArrayList<>(List.of("node", "--endpoint", proxy.endpoint().toString(),
                        "--path-style", String.valueOf(testbed.endpoint().pathStyle()), "--bucket", testbed.bucket(),
                        "--key", testbed.key(), "--out", nodeDir.resolve("out").toString(), "--start-signal", "stdin",
                        "--no-sha256"));
                if (strategy == null) {
                    args.addAll(List.of("--method", "transfer-manager", "--node-id", "tm-" + i));
                } else {
                    args.addAll(List.of("--strategy", strategy.name()));
                    if (cluster) {
                        String host = Namespaces.address(i);
                        args.addAll(List.of("--registry", registry.toString(), "--listen", host + ":" + PEER_PORT,
                                "--advertised-host", host, "--node-id", NodeInfo.idFor(host, PEER_PORT),
                                "--expect", String.valueOf(churn.starters(n)), "--expect-timeout",
                                spec.expectTimeout().toSeconds() + "s"));
                        if (churn.any() || keepLogs != null) {
                            args.add("--samples");
                        }
                        if (churn.role(i, n) == Churn.Role.LEAVE) {
                            args.add("--leave-on-stdin");
                        }
                    } else {
                        args.addAll(List.of("--node-id", "flat-" + i));
                    }
                }
                args.addAll(tuningArgs());
                List<String> jvm = new ArrayList<>(archiveFlags);
                jvm.addAll(nodeJvmOptions);
                ProcessBuilder pb = launch(i, NodeJvm.command(jvm, args));
                Path out = nodeDir.resolve("stdout");
                pb.redirectOutput(out.toFile()).redirectError(nodeDir.resolve("stderr").toFile());
                environment(pb.environment());
                Process p = pb.start();
                namespaces.limitCpu(i, p.pid());
                processes.add(p);
                outs.add(out);
            }
            awaitReady(processes, outs, trialDir);
            long t0Millis = System.currentTimeMillis();
            long t0 = System.nanoTime();
            startUp = (t0 - launched) / 1e9;
            this.t0Millis = t0Millis;
            List<Process> joiners = new ArrayList<>();
            List<Process> leavers = new ArrayList<>();
            long[] base = s3Bytes();
            clock = null;
            for (int i = 0; i < processes.size(); i++) {
                if (churn.role(i, n) == Churn.Role.JOIN) {
                    joiners.add(processes.get(i));
                } else {
                    signal(processes.get(i));
                    if (churn.role(i, n) == Churn.Role.LEAVE) {
                        leavers.add(processes.get(i));
                    }
                }
            }
            if (churn.any()) {
                ChurnClock c = new ChurnClock(churn, ChurnClock.sentSince(base, this::s3Bytes), t0Millis).start();
                clock = c;
                c.join().thenRun(() -> signalAll(joiners));
                c.leave().thenRun(() -> signalAll(leavers)); // their second line: leave
            }
            List<FleetNode> nodes = FleetProcesses.awaitAll(processes, t0, spec.timeout(), (i, result) ->
                    node(i, result, outs.get(i), t0Millis, trialDir.resolve("node-" + i)));
            samples = churn.any() ? samplesOf(outs) : List.of();
            if (clock != null) {
                clock.stop();
            }
            return nodes;
        } finally {
            for (Process p : processes) {
                if (p.isAlive()) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            }
        }
    }

    private void copyLogs(Path trialDir) {
        if (keepLogs == null || !Files.isDirectory(trialDir)) {
            return;
        }
        try (var nodes = Files.list(trialDir)) {
            Path to = Files.createDirectories(keepLogs.resolve(trialDir.getFileName()));
            for (Path node : nodes.filter(Files::isDirectory).toList()) {
                for (String f : List.of("stdout", "stderr")) {
                    Path from = node.resolve(f);
                    if (Files.exists(from)) {
                        Files.copy(from, to.resolve(node.getFileName() + "." + f),
                                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot keep the node logs of {}: {}", trialDir, e.toString());
        }
    }

    /** The start signal: a line on the node's stdin. */
    private static void signal(Process p) throws IOException {
        OutputStream in = p.getOutputStream();
        in.write('\n');
        in.flush();
    }

    /** A line on each process's stdin (a start signal, or a leaver's signal to leave); on the churn clock's thread. */
    private static void signalAll(List<Process> processes) {
        for (Process p : processes) {
            try {
                signal(p);
            } catch (IOException e) {
                LOG.warn("could not signal a node: {}", e.toString());
            }
        }
    }


    /** Each node's throughput samples from its JSON line (none when it printed none). */
    static List<List<long[]>> samplesOf(List<Path> outs) throws IOException {
        List<List<long[]>> all = new ArrayList<>();
        for (Path out : outs) {
            List<long[]> node = new ArrayList<>();
            JsonNode json = Json.lastLine(out);
            if (json != null) {
                for (JsonNode s : json.path("samples")) {
                    node.add(new long[] {s.get(0).asLong(), s.get(1).asLong()});
                }
            }
            all.add(node);
        }
        return all;
    }

    /** The class-data archive's flags for the node JVMs, the archive made by a training run first if needed. */
    private List<String> archiveFlags() throws IOException, InterruptedException {
        if (archive == null) {
            return List.of();
        }
        Path training = dir.resolve("cds-training");
        try {
            return archive.flags(NodeJvm.training(testbed, training));
        } finally {
            FleetFiles.deleteTree(training);
        }
    }

    private List<String> tuningArgs() {
        NodeTuning t = spec.tuning();
        List<String> a = new ArrayList<>();
        if (t.pieceSize != null) {
            a.addAll(List.of("--piece-size", String.valueOf(t.pieceSize)));
        }
        if (t.workSize != null) {
            a.addAll(List.of("--work-size", String.valueOf(t.workSize)));
        }
        if (t.connections != null) {
            a.addAll(List.of("--connections", String.valueOf(t.connections)));
        }
        if (t.rangeSize != null) {
            a.addAll(List.of("--range-size", String.valueOf(t.rangeSize)));
        }
        if (t.linger != null) {
            a.addAll(List.of("--linger", t.linger.toMillis() + "ms"));
        }
        if (t.httpClient != null) {
            a.addAll(List.of("--http-client", t.httpClient));
        }
        if (t.overlayPeers != null) {
            a.addAll(List.of("--overlay-peers", String.valueOf(t.overlayPeers)));
        }
        if (t.noExpectNodes) {
            a.add("--no-expect-nodes");
        }
        return a;
    }

    private void environment(Map<String, String> env) {
        NodeJvm.environment(testbed.endpoint(), env);
        env.put("S3BROADCAST_SECRET", secret);
    }

    /** Waits until every node printed READY; a node that exits first fails the trial with its stderr. */
    private void awaitReady(List<Process> processes, List<Path> outs, Path trialDir) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        for (int i = 0; i < processes.size(); i++) {
            while (!Files.exists(outs.get(i)) || !Files.readString(outs.get(i)).contains("READY")) {
                if (!processes.get(i).isAlive()) {
                    throw new IOException("node " + i + " exited before it was ready: "
                            + FleetProcesses.tail(trialDir.resolve("node-" + i).resolve("stderr")));
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("node " + i + " not ready after 120 s: "
                            + FleetProcesses.tail(trialDir.resolve("node-" + i).resolve("stderr")));
                }
                Thread.sleep(20); // polling a file another process writes; nothing to await
            }
        }
    }

    private FleetNode node(int i, FleetProcesses.Result result, Path out, long t0Millis, Path nodeDir) throws IOException {
        String link = spec.links().get(i).describe();
        JsonNode json = Json.lastLine(out);
        if (json == null) {
            return new FleetNode(i, "node-" + i, link, null, result.seconds(), null, null, 0, null, null, null,
                    result.cpuSeconds(), null, null, result.peakRssBytes(), false,
                    "no JSON line (exit " + result.exitCode() + "): " + FleetProcesses.tail(nodeDir.resolve("stderr")));
        }
        JsonNode p = json.path("process");
        // The node ran with --no-sha256: the file is checked here, after the node's exit, by a JVM with C2.
        Path file = nodeDir.resolve("out").resolve(NodeCommand.fileName(testbed.key()));
        boolean ok = json.path("error").isNull() && Files.exists(file) && testbed.sha256().equals(Sha256.of(file));
        Double seconds = p.path("doneEpochMillis").isNumber()
                ? SingleCommand.round((p.path("doneEpochMillis").asLong() - t0Millis) / 1e3, 3) : null;
        double started = (p.path("startEpochMillis").asLong() - t0Millis) / 1e3;
        Double p1 = json.path("phase1Seconds").isNumber()
                ? SingleCommand.round(started + json.path("phase1Seconds").asDouble(), 3) : null;
        Double p2 = p1 != null && json.path("phase2Seconds").isNumber()
                ? SingleCommand.round(p1 + json.path("phase2Seconds").asDouble(), 3) : null;
        AfterLastPiece after = AfterLastPiece.of(json);
        if (seconds != null && p2 != null && after != null) {
            // Placed back from the end: the run's phases start after the HEAD, which the fetch's start is before.
            p2 = SingleCommand.round(seconds - after.total(), 3);
            p1 = SingleCommand.round(p2 - json.path("phase2Seconds").asDouble(), 3);
        }
        return new FleetNode(i, json.path("nodeId").asText(), link, seconds, result.seconds(), p1, p2, 0,
                json.path("bytesFromS3").isNumber() ? json.path("bytesFromS3").asLong() : null,
                json.path("bytesFromPeers").isNumber() ? json.path("bytesFromPeers").asLong() : null,
                json.path("piecesStolen").isNumber() ? json.path("piecesStolen").asInt() : null, result.cpuSeconds(),
                p.path("gcSeconds").isNumber() ? p.path("gcSeconds").asDouble() : null,
                p.path("jitSeconds").isNumber() ? p.path("jitSeconds").asDouble() : null, result.peakRssBytes(), ok,
                json.path("error").isNull() ? (ok ? null : "SHA-256 mismatch") : json.path("error").asText(),
                json.path("hedges").isNumber() ? json.path("hedges").asInt() : null, after);
    }

    private long[] s3Bytes() {
        var stats = proxy.stats();
        long[] bytes = new long[spec.nodes()];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = stats.bytesToClient(Namespaces.address(i));
        }
        return bytes;
    }

    /** A copy of the object on this machine (for mktorrent), fetched once, untimed, straight from the server. */
    synchronized Path reference() throws IOException {
        if (reference == null) {
            Path file = dir.resolve("reference.bin");
            try (GetObjectMethod plain = new GetObjectMethod(testbed.endpoint())) {
                plain.download(testbed.bucket(), testbed.key(), file);
            }
            if (!Sha256.of(file).equals(testbed.sha256())) {
                throw new IOException("the reference copy of the object has the wrong SHA-256");
            }
            reference = file;
        }
        return reference;
    }

    /**
     * opentracker on the bridge for one torrent (Debian builds it with a whitelist of info hashes, so it is started
     * per torrent with a whitelist of one).
     */
    synchronized void startTracker(String infoHash) throws IOException, InterruptedException {
        if (tracker != null) {
            tracker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Path log = dir.resolve("opentracker.log");
        // It chroots to -d, then drops to nobody, then reads the whitelist from inside the chroot.
        Path root = Files.createDirectories(dir.resolve("tracker"));
        Files.setPosixFilePermissions(root, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(root.resolve("whitelist"), infoHash + "\n");
        tracker = new ProcessBuilder(FleetTools.find("opentracker").toString(), "-i", Namespaces.BRIDGE_ADDRESS, "-p",
                String.valueOf(Aria2Swarm.TRACKER_PORT), "-P", String.valueOf(Aria2Swarm.TRACKER_PORT), "-d",
                root.toString(), "-u", "nobody", "-w", "/whitelist").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        namespaces.own(tracker);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new InetSocketAddress(Namespaces.BRIDGE_ADDRESS, Aria2Swarm.TRACKER_PORT), 200);
                return;
            } catch (IOException e) {
                if (!tracker.isAlive()) {
                    throw new IOException("opentracker exited: " + FleetProcesses.tail(log));
                }
                Thread.sleep(50); // polling for a port another process opens
            }
        }
        throw new IOException("opentracker not listening after 10 s: " + FleetProcesses.tail(log));
    }

    @Override
    public void close() {
        if (tracker != null) {
            tracker.destroyForcibly();
        }
        try {
            proxy.close();
        } finally {
            namespaces.close();
        }
    }
}
