package io.s3broadcast.bench;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchAllHandle;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.regions.Region;

/** {@code node}: one real node of a cluster broadcast, as run on each machine of a fleet. */
@Command(name = NodeCommand.NAME,
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Be one node of a cluster broadcast: fetch one object (or every object under a prefix) with the others,"
                + " verify it, report.",
        description = {
            "%nRun this on every machine with the same --registry (and --bucket, --key, --strategy). Each node reads"
                    + " its share from S3 and the rest from the other nodes, puts the object in --out, checks its"
                    + " SHA-256 and ends with one JSON line. After the JSON line it keeps serving peers that are not"
                    + " done, for up to --linger, then exits. Credentials come from the SDK's default chain"
                    + " (e.g. AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); the region from --region or AWS_REGION.",
        },
        footerHeading = "%nExample (on each of two machines, with its own --listen):%n",
        footer = "  java -jar broadcast-bench.jar node --endpoint http://10.0.0.9:9000 --bucket b --key big.bin --out /data \\%n"
                + "      --registry static:10.0.0.1:7070,10.0.0.2:7070 --listen 10.0.0.1:7070 --expect 2")
public final class NodeCommand implements Callable<Integer> {

    /** The command's name. */
    static final String NAME = "node";

    private static final Logger LOG = LoggerFactory.getLogger(NodeCommand.class);

    /** How long the last {@code Broadcast.builder().build()} took, seconds (0 before one). */
    private double buildSeconds;
    private double cpuAtStartSeconds;

    @Spec
    CommandSpec spec;

    @Option(names = "--endpoint", paramLabel = "URL", description = "S3 endpoint (default: AWS S3 of the region).")
    URI endpoint;

    @Option(names = "--region", description = "Signing region (default: the SDK's region chain, e.g. AWS_REGION).")
    String region;

    @Option(names = "--path-style", arity = "1", paramLabel = "true|false",
            description = "Path-style addressing (default: true when --endpoint is set).")
    Boolean pathStyle;

    @Option(names = "--bucket", required = true, description = "Bucket of the object.")
    String bucket;

    @Option(names = "--key", description = "Key of the object (or --prefix).")
    String key;

    @Option(names = "--prefix", paramLabel = "PREFIX",
            description = "Instead of --key: every object under PREFIX, as one broadcast (Broadcast.fetchAll), into"
                    + " --out with the paths below the prefix kept; the JSON line has one entry per object and totals.")
    String prefix;

    @Option(names = "--out", required = true, paramLabel = "DIR",
            description = "Directory the object goes into, named after the key's last segment.")
    Path out;

    @Option(names = "--registry", paramLabel = "SPEC",
            description = "How nodes find each other: static:host:port,host:port, s3://bucket/prefix or"
                    + " zk://host:port/path (default: Broadcast's, s3broadcast.registry; without one the node fetches"
                    + " alone with the flat tree).")
    String registry;

    @Option(names = "--listen", paramLabel = "HOST:PORT", converter = Converters.HostPortConverter.class,
            description = "Address the peer server binds, e.g. 0.0.0.0:7070 (default: Broadcast's, any free port).")
    InetSocketAddress listen;

    @Option(names = "--advertised-host", paramLabel = "HOST",
            description = "Host the other nodes reach this one at (default: chosen among this host's interfaces).")
    String advertisedHost;

    @Option(names = "--node-id", paramLabel = "ID",
            description = "This node's id, unique in the group (default: host name and listen port, e.g. web-3-7070).")
    String nodeId;

    @Option(names = "--group", paramLabel = "NAME", description = "Separates broadcasts of the same object.")
    String group;

    @Option(names = "--expect", paramLabel = "N",
            description = "Wait for N nodes (this one included) to join before starting (default: Broadcast's).")
    Integer expect;

    @Option(names = "--expect-timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "2m", description = "How long to wait for them; then start with who is there (default: ${DEFAULT-VALUE}).")
    Duration expectTimeout;

    @Option(names = "--strategy", paramLabel = "flat|non-steal|steal|overlap",
            converter = Converters.StrategyConverter.class,
            description = "How the nodes share the work (default: Broadcast's, overlap with a registry, flat without).")
    Strategy strategy;

    @Option(names = "--method", paramLabel = "ours|transfer-manager", defaultValue = "ours",
            description = "ours: Broadcast.fetch; transfer-manager: the AWS S3 Transfer Manager's downloadFile alone,"
                    + " with --connections and --range-size (default 16 and 32MiB), for comparison (default: ${DEFAULT-VALUE}).")
    String method;

    @Option(names = "--start-signal", paramLabel = "stdin",
            description = "stdin: once ready (JVM up, clients built), print READY and wait for a line on stdin before"
                    + " fetching, so a fleet starts every node at one signal.")
    String startSignal;

    @Option(names = "--leave-after", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "Leave the broadcast this long after the fetch started: close the Broadcast (a graceful"
                    + " leave: unfinished works handed to peers, GOODBYE). The JSON line's error is then 'left'.")
    Duration leaveAfter;

    @Option(names = "--leave-on-stdin", negatable = false,
            description = "With --start-signal stdin: leave the broadcast (close the Broadcast, as --leave-after) when a"
                    + " second line arrives on stdin: how fleet --leave makes a node leave.")
    boolean leaveOnStdin;

    /** Stdin, once the start signal was read from it. */
    private java.io.BufferedReader stdinReader;

    @Option(names = "--samples", negatable = false,
            description = "Put the bytes of completed pieces per 250 ms of the wall clock in the JSON line (samples),"
                    + " for fleet's throughput time series.")
    boolean samples;

    @Option(names = "--trials", defaultValue = "1", paramLabel = "T",
            description = "Repeat the broadcast T times per strategy, in lock-step with the other nodes: each (trial,"
                    + " strategy) is its own group, so every node waits for the others (--expect) before each (default: ${DEFAULT-VALUE}).")
    int trials;

    @Option(names = "--strategies", split = ",", paramLabel = "LIST", converter = Converters.StrategyConverter.class,
            description = "Strategies to run in turn in every trial (instead of --strategy).")
    java.util.List<Strategy> strategies;

    @Option(names = "--results", paramLabel = "s3://BUCKET/PREFIX",
            description = "Also put each run's JSON line at PREFIX/t<trial>/<strategy>/<node id>.json (read by report).")
    URI results;

    @Option(names = "--no-sha256", negatable = false,
            description = "Do not compute the SHA-256 of the fetched file (the JSON line's sha256 is then null): for"
                    + " a launcher that checks the file itself, after the node exits (fleet, single --fresh-jvm), so a"
                    + " node JVM does not spend CPU on the bench's check.")
    boolean noSha256;

    @Mixin
    NodeTuning tuning;

    @Mixin
    PeerSecurityOptions security;

    @Override
    public Integer call() throws Exception {
        if ((key == null) == (prefix == null)) {
            throw new ParameterException(spec.commandLine(), "give one of --key (one object) or --prefix (every object"
                    + " under it)");
        }
        if (prefix != null && (trials != 1 || strategies != null || results != null
                || !method.equals("ours"))) {
            throw new ParameterException(spec.commandLine(), "--prefix is for one broadcast with --method ours, not"
                    + " --trials, --strategies, --results or --method transfer-manager");
        }
        if (trials < 1) {
            throw new ParameterException(spec.commandLine(), "--trials must be at least 1");
        }
        if (trials == 1 && strategies == null && results == null) {
            return fetchOnce(null);
        }
        if (startSignal != null) {
            throw new ParameterException(spec.commandLine(), "--start-signal is for one fetch, not --trials/--strategies");
        }
        java.util.List<Strategy> list = strategies != null ? strategies
                : java.util.Collections.singletonList(strategy);
        String baseGroup = group != null ? group : "bench";
        int failed = 0;
        for (int t = 1; t <= trials; t++) {
            for (Strategy s : list) {
                strategy = s;
                String name = s == null ? "default" : Converters.name(s);
                group = baseGroup + "-t" + t + "-" + name;
                LOG.info("trial {}/{}: {} (group {})", t, trials, name, group);
                failed += fetchOnce("t" + t + "/" + name) == 0 ? 0 : 1;
                Files.deleteIfExists(out.resolve(fileName(key)));
            }
        }
        return failed == 0 ? 0 : 1;
    }

    /** One fetch; its JSON line also goes to --results under {@code resultPath} when both are set. */
    private int fetchOnce(String resultPath) throws Exception {
        double loadBefore = Machine.loadAverage();
        if (expect != null && expect < 1) {
            throw new ParameterException(spec.commandLine(), "--expect must be at least 1");
        }
        String id = nodeId != null ? nodeId : defaultNodeId(listen);
        Path dir = Files.createDirectories(out);
        Broadcast.Builder builder = Broadcast.builder().destinationDirectory(dir).nodeId(id);
        if (strategy != null) {
            builder.strategy(strategy);
        }
        if (endpoint != null) {
            builder.endpoint(endpoint);
        }
        if (region != null) {
            builder.region(Region.of(region));
        }
        if (pathStyle != null) {
            builder.pathStyle(pathStyle);
        }
        if (registry != null) {
            builder.registry(registry);
        }
        if (listen != null) {
            builder.listen(listen);
        }
        if (advertisedHost != null) {
            builder.advertisedHost(advertisedHost);
        }
        if (group != null) {
            builder.groupName(group);
        }
        if (expect != null && !tuning.noExpectNodes) {
            builder.expectNodes(expect, expectTimeout);
        }
        tuning.applyTo(builder);
        security.applyTo(builder);

        PrintWriter stdout = spec.commandLine().getOut();
        String listenText = listen != null ? listen.getHostString() + ":" + listen.getPort() : null;
        if (method.equals("transfer-manager")) {
            return transferManager(stdout, id, dir, listenText, loadBefore);
        }
        if (!method.equals("ours")) {
            throw new ParameterException(spec.commandLine(), "--method is ours or transfer-manager, not '" + method + "'");
        }
        if (prefix != null) {
            return fetchPrefix(builder, stdout, id, dir, listenText, loadBefore);
        }
        long building = System.nanoTime();
        try (Broadcast broadcast = builder.build()) {
            buildSeconds = SingleCommand.round((System.nanoTime() - building) / 1e9, 3);
            NodeReport report;
            long ready = System.currentTimeMillis();
            long start = awaitStartSignal(stdout);
            ThroughputSampler sampler = samples ? new ThroughputSampler() : null;
            FetchRequest.Builder request = FetchRequest.builder().bucket(bucket).key(key).force(true)
                    .destination(dir.resolve(fileName(key)));
            if (sampler != null) {
                request.addListener(sampler);
            }
            FetchHandle handle = null;
            java.util.concurrent.atomic.AtomicBoolean left = new java.util.concurrent.atomic.AtomicBoolean();
            try {
                handle = broadcast.fetch(request.build());
                if (leaveAfter != null) {
                    leaveLater(broadcast, leaveAfter, left);
                }
                if (leaveOnStdin && stdinReader != null) {
                    leaveOnLine(broadcast, stdinReader, left);
                }
                CompletedFetch done = handle.join();
                long doneAt = System.currentTimeMillis();
                String sha256 = noSha256 ? null : Sha256.of(done.path());
                report = new NodeReport("node", id, done.strategy().name(), registry, listenText, bucket, key,
                        done.eTag(), done.versionId().orElse(null), done.path().toAbsolutePath().toString(), done.size(), sha256, done.bytesFromS3(),
                        done.bytesFromPeers(), seconds(done.duration()), seconds(done.phase1()), seconds(done.phase2()),
                        done.piecesStolen(), SingleCommand.round(done.megabytesPerSecond(), 2), done.checksumVerified(),
                        done.piecesRepaired(), done.bannedPeers(), tuning.describe(), null, Machine.current(loadBefore),
                        process("ours", ready, start, doneAt), done.hedges(), AfterLastPiece.of(done),
                        sampler == null ? null : sampler.samples());
                print(stdout, report);
            } catch (RuntimeException e) {
                // join() throws a CompletionException wrapping the fetch's BroadcastException, or a CancellationException.
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                if (left.get()) {
                    LOG.info("node {}: left the broadcast of s3://{}/{}", id, bucket, key);
                } else {
                    LOG.error("node {}: the fetch of s3://{}/{} failed", id, bucket, key, cause);
                }
                Long fromS3 = handle == null ? null : handle.progress().bytesFromS3();
                report = new NodeReport("node", id, strategy != null ? strategy.name() : null, registry, listenText,
                        bucket, key, null, null, null, null, null, fromS3, null, null, null, null, null, null, null, null,
                        null, tuning.describe(), left.get() ? "left" : String.valueOf(cause), Machine.current(loadBefore),
                        process("ours", ready, start, null), null, null, sampler == null ? null : sampler.samples());
            }
            stdout.println(Json.line(report));
            stdout.flush();
            if (results != null && resultPath != null) {
                putResult(resultPath, id, Json.line(report));
            }
            if (report.error() == null) {
                LOG.info("node {}: done; serving peers that are not done for up to the linger time", id);
            }
            return report.error() == null ? 0 : 1;
        }
    }

    /** {@code --prefix}: every object under it as one broadcast; one JSON line with each object and the totals. */
    private int fetchPrefix(Broadcast.Builder builder, PrintWriter stdout, String id, Path dir, String listenText,
            double loadBefore) throws Exception {
        long building = System.nanoTime();
        try (Broadcast broadcast = builder.build()) {
            buildSeconds = SingleCommand.round((System.nanoTime() - building) / 1e9, 3);
            long ready = System.currentTimeMillis();
            long start = awaitStartSignal(stdout);
            NodePrefixReport report;
            try {
                FetchAllHandle handle = broadcast.fetchAll(bucket, prefix, dir);
                java.util.List<CompletedFetch> done = handle.join();
                long doneAt = System.currentTimeMillis();
                java.util.List<NodePrefixReport.ObjectResult> objects = new java.util.ArrayList<>();
                for (CompletedFetch f : done) {
                    objects.add(new NodePrefixReport.ObjectResult(f.key(), f.eTag(), f.path().toAbsolutePath().toString(),
                            f.size(), Sha256.of(f.path()), f.bytesFromS3(), f.bytesFromPeers(), seconds(f.duration()),
                            f.checksumVerified(), f.unchanged()));
                }
                report = new NodePrefixReport("node", id, strategy != null ? strategy.name()
                        : done.isEmpty() ? null : done.get(0).strategy().name(), registry, listenText, bucket, prefix,
                        objects, NodePrefixReport.Totals.of(objects, (doneAt - start) / 1e3), tuning.describe(), null,
                        Machine.current(loadBefore), process("ours", ready, start, doneAt));
                stdout.printf(Locale.ROOT, "%nnode %s fetched %d objects under s3://%s/%s: %d bytes, %d from S3, %d from"
                        + " peers%n", id, objects.size(), bucket, prefix, report.totals().size(),
                        report.totals().bytesFromS3(), report.totals().bytesFromPeers());
            } catch (RuntimeException e) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                LOG.error("node {}: the fetch of s3://{}/{}* failed", id, bucket, prefix, cause);
                report = new NodePrefixReport("node", id, strategy != null ? strategy.name() : null, registry,
                        listenText, bucket, prefix, null, null, tuning.describe(), String.valueOf(cause),
                        Machine.current(loadBefore), process("ours", ready, start, null));
            }
            stdout.println(Json.line(report));
            stdout.flush();
            if (report.error() == null) {
                LOG.info("node {}: done; serving peers that are not done for up to the linger time", id);
            }
            return report.error() == null ? 0 : 1;
        }
    }

    /**
     * {@code --method transfer-manager}: the Transfer Manager's downloadFile of the whole object, alone, timed like
     * ours: its client's build apart ({@code buildSeconds}), and the download until the file is durable (the
     * bench's fsync of file and directory, as {@code Broadcast.fetch} does before it returns).
     */
    private int transferManager(PrintWriter stdout, String id, Path dir, String listenText, double loadBefore)
            throws Exception {
        Endpoint ep = Endpoint.external(endpoint, region, pathStyle);
        Tuning t = new Tuning(tuning.connections != null ? tuning.connections : FleetBaselines.DEFAULT_CONNECTIONS,
                tuning.rangeSize != null ? tuning.rangeSize : FleetBaselines.DEFAULT_PART, null, null, null);
        Path file = dir.resolve(fileName(key));
        NodeReport report;
        long building = System.nanoTime();
        try (TransferManagerMethod tm = new TransferManagerMethod(ep, t)) {
            buildSeconds = SingleCommand.round((System.nanoTime() - building) / 1e9, 3);
            long ready = System.currentTimeMillis();
            long start = awaitStartSignal(stdout);
            try {
                tm.download(bucket, key, file);
                Durability.fsync(file);
                long doneAt = System.currentTimeMillis();
                long size = Files.size(file);
                report = new NodeReport("node", id, "transfer-manager", null, listenText, bucket, key, null, null,
                        file.toAbsolutePath().toString(), size, noSha256 ? null : Sha256.of(file), size, 0L,
                        (doneAt - start) / 1e3, null, null, null, null, false, null, null, tm.settings(), null,
                        Machine.current(loadBefore), process("transfer-manager", ready, start, doneAt));
            } catch (RuntimeException | IOException e) {
                LOG.error("node {}: the Transfer Manager's download of s3://{}/{} failed", id, bucket, key, e);
                report = new NodeReport("node", id, "transfer-manager", null, listenText, bucket, key, null, null, null,
                        null, null, null, null, null, null, null, null, null, null, null, null, tm.settings(), e.toString(),
                        Machine.current(loadBefore), process("transfer-manager", ready, start, null));
            }
        }
        stdout.println(Json.line(report));
        stdout.flush();
        return report.error() == null ? 0 : 1;
    }

    private void putResult(String resultPath, String id, String json) {
        String bucketName = results.getHost();
        String prefix = results.getPath().replaceAll("^/+|/+$", "");
        String objectKey = (prefix.isEmpty() ? "" : prefix + "/") + resultPath + "/" + id + ".json";
        Endpoint ep = Endpoint.external(endpoint, region, pathStyle);
        try (software.amazon.awssdk.services.s3.S3AsyncClient s3 = ep.nettyClient(2).build()) {
            s3.putObject(b -> b.bucket(bucketName).key(objectKey),
                    software.amazon.awssdk.core.async.AsyncRequestBody.fromString(json)).join();
        } catch (RuntimeException e) {
            LOG.error("node {}: cannot put its result at s3://{}/{}: {}", id, bucketName, objectKey, e.toString());
        }
    }

    /** Closes {@code broadcast} {@code after} from now on a thread of its own (a graceful leave), marking {@code left}. */
    private static void leaveLater(Broadcast broadcast, Duration after, java.util.concurrent.atomic.AtomicBoolean left) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(after.toMillis()); // the bench's own clock: leave at this time
            } catch (InterruptedException e) {
                return;
            }
            left.set(true);
            broadcast.close();
        }, "leave-after");
        t.setDaemon(true);
        t.start();
    }

    /** Closes {@code broadcast} when a line arrives on {@code in} (a graceful leave), marking {@code left}. */
    private static void leaveOnLine(Broadcast broadcast, java.io.BufferedReader in,
            java.util.concurrent.atomic.AtomicBoolean left) {
        Thread t = new Thread(() -> {
            try {
                if (in.readLine() == null) {
                    return; // stdin closed: the fleet is done with this node
                }
            } catch (java.io.IOException e) {
                return;
            }
            left.set(true);
            broadcast.close();
        }, "leave-on-stdin");
        t.setDaemon(true);
        t.start();
    }

    /** With {@code --start-signal stdin}: prints READY, waits for a line on stdin; returns when it came (epoch ms). */
    private long awaitStartSignal(PrintWriter stdout) throws java.io.IOException {
        if (startSignal == null) {
            return System.currentTimeMillis();
        }
        if (!startSignal.equals("stdin")) {
            throw new ParameterException(spec.commandLine(), "--start-signal is stdin, not '" + startSignal + "'");
        }
        stdout.println("READY");
        stdout.flush();
        java.io.BufferedReader in = new java.io.BufferedReader(
                new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.US_ASCII));
        if (in.readLine() == null) {
            throw new java.io.EOFException("stdin closed before the start signal");
        }
        stdinReader = in;
        cpuAtStartSeconds = InProcessFleet.JvmCpu.now().cpuSeconds();
        return System.currentTimeMillis();
    }

    private NodeReport.NodeProcess process(String method, long ready, long start, Long done) {
        InProcessFleet.JvmCpu cpu = InProcessFleet.JvmCpu.now();
        return new NodeReport.NodeProcess(method, ready, start, done, SingleCommand.round(cpu.cpuSeconds(), 3),
                SingleCommand.round(cpu.gcSeconds(), 3), SingleCommand.round(cpu.jitSeconds(), 3), buildSeconds,
                SingleCommand.round(cpuAtStartSeconds, 3));
    }

    static double seconds(Duration d) {
        return d == null ? 0 : SingleCommand.round(d.toNanos() / 1e9, 3);
    }

    /** The last segment of the key ({@code /} and {@code \\} both separate), as Broadcast names the file by default. */
    /** The file name a node gives the object {@code key}: its last path segment (after / or \\), or "object". */
    public static Path fileName(String key) {
        String name = key.substring(Math.max(key.lastIndexOf('/'), key.lastIndexOf('\\')) + 1);
        return Path.of(name.isEmpty() || name.equals(".") || name.equals("..") ? "object" : name);
    }

    private static String defaultNodeId(InetSocketAddress listen) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "node";
        }
        String id = host.replaceAll("[^A-Za-z0-9_:-]", "-");
        return listen != null && listen.getPort() != 0 ? id + "-" + listen.getPort() : id;
    }

    private static void print(PrintWriter out, NodeReport r) {
        out.printf(Locale.ROOT, "%nnode %s fetched s3://%s/%s (%s)%n", r.nodeId(), r.bucket(), r.key(), r.strategy());
        out.printf(Locale.ROOT, "  path               %s%n", r.path());
        out.printf(Locale.ROOT, "  bytes              %d (%s)%n", r.size(), ByteSize.format(r.size()));
        out.printf(Locale.ROOT, "  seconds            %.3f (phase 1 %.3f, phase 2 %.3f)%n", r.seconds(), r.phase1Seconds(),
                r.phase2Seconds());
        out.printf(Locale.ROOT, "  bytes from S3      %d%n", r.bytesFromS3());
        out.printf(Locale.ROOT, "  bytes from peers   %d%n", r.bytesFromPeers());
        out.printf(Locale.ROOT, "  pieces stolen      %d%n", r.piecesStolen());
        if (r.hedges() != null) {
            out.printf(Locale.ROOT, "  hedged reads       %d%n", r.hedges());
        }
        out.printf(Locale.ROOT, "  sha256             %s%n", r.sha256());
    }
}
