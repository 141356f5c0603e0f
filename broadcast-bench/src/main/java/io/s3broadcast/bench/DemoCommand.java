package io.s3broadcast.bench;

import io.s3broadcast.FetchAllHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.S3ProxyServer;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLongArray;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code demo}: a small cluster in this JVM fetching one object from an embedded S3 server, with the flat tree and with a
 * cluster strategy, side by side.
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Broadcast one object to a small cluster in this JVM: flat tree against a cluster strategy.",
        description = {
            "%nStarts S3Proxy in this JVM and uploads a seeded random object of --size bytes. Then --nodes Broadcast"
                    + " nodes, each with its own S3 client, directory and loopback peer port, fetch it twice: with the"
                    + " flat tree (every node reads the whole object from S3) and with --strategy (each node reads a"
                    + " share and gets the rest from the others), with a progress bar on stderr. Prints every node's"
                    + " completion time and S3 bytes side by side, and one JSON line.",
        },
        footerHeading = "%nExample:%n",
        footer = "  java -jar broadcast-bench.jar demo --nodes 4 --size 96MiB --strategy steal%n"
                + "  java -jar broadcast-bench.jar demo --nodes 3 --prefix dataset/ --objects 4 --size 8MiB")
final class DemoCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(DemoCommand.class);

    @Spec
    CommandSpec spec;

    /** The cluster strategy shown against the flat tree unless {@code --strategy}: Broadcast's default with a registry. */
    static final Strategy DEFAULT_CLUSTER_STRATEGY = Strategy.OVERLAP;

    @Option(names = "--size", paramLabel = "SIZE", converter = ByteSize.Converter.class, defaultValue = "96MiB",
            description = "Size of the object, e.g. 16MiB, 1GiB (default: ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--nodes", defaultValue = "4", description = "Nodes in the cluster (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--strategy", paramLabel = "non-steal|steal|overlap", converter = Converters.StrategyConverter.class,
            description = "Cluster strategy to compare with the flat tree (default: overlap, Broadcast's with a registry).")
    Strategy strategy = DEFAULT_CLUSTER_STRATEGY;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the random object (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    NodeTuning tuning;

    @Mixin
    PeerSecurityOptions security;

    @Option(names = "--work-dir", paramLabel = "DIR",
            description = "Where the nodes' directories go (a new temporary directory inside it, deleted afterwards;"
                    + " default: java.io.tmpdir).")
    Path workDir;

    @Option(names = "--no-progress", negatable = false, description = "No progress bar.")
    boolean noProgress;

    @Option(names = "--prefix", paramLabel = "PREFIX",
            description = "Instead of one object: --objects seeded objects of --size each under PREFIX (e.g. dataset/),"
                    + " fetched by every node as one broadcast (Broadcast.fetchAll).")
    String prefix;

    @Option(names = "--objects", defaultValue = "4", paramLabel = "N",
            description = "With --prefix: how many objects (default: ${DEFAULT-VALUE}).")
    int objects;

    @Override
    public Integer call() throws Exception {
        if (size < 0) {
            throw new ParameterException(spec.commandLine(), "--size must not be negative");
        }
        if (nodes < 1) {
            throw new ParameterException(spec.commandLine(), "--nodes must be at least 1");
        }
        if (!strategy.isCluster()) {
            throw new ParameterException(spec.commandLine(), "--strategy names the cluster strategy shown next to the"
                    + " flat tree: non-steal, steal or overlap");
        }
        if (prefix != null) {
            if (objects < 1) {
                throw new ParameterException(spec.commandLine(), "--objects must be at least 1");
            }
            if (prefix.isEmpty() || !prefix.endsWith("/")) {
                throw new ParameterException(spec.commandLine(), "--prefix is a folder-like prefix ending in /, e.g."
                        + " dataset/");
            }
        }
        double loadBefore = Machine.loadAverage();
        Path dir = workDir != null ? Files.createTempDirectory(Files.createDirectories(workDir), "s3broadcast-demo-")
                : Files.createTempDirectory("s3broadcast-demo-");
        PrintWriter out = spec.commandLine().getOut();
        if (prefix != null) {
            try {
                return prefixDemo(out, dir, loadBefore);
            } finally {
                deleteIfEmpty(dir);
            }
        }
        try (Testbed testbed = Testbed.embedded(size, seed)) {
            LocalCluster.Options options = new LocalCluster.Options(nodes, Strategy.FLAT_TREE, tuning, -1, 0, 0,
                    Duration.ofSeconds(60), Duration.ofMinutes(10), security);
            Map<String, ClusterTrial> runs = new LinkedHashMap<>();
            for (Strategy s : List.of(Strategy.FLAT_TREE, strategy)) {
                String name = Converters.name(s);
                LOG.info("{} nodes fetch s3://{}/{} with {}", nodes, testbed.bucket(), testbed.key(), name);
                try (ClusterBar bar = noProgress ? null : new ClusterBar(name, nodes, size)) {
                    runs.put(s.name(), LocalCluster.run(testbed, options.withStrategy(s), dir, 1,
                            bar != null ? bar::listener : null));
                }
            }
            ClusterTrial flat = runs.get(Strategy.FLAT_TREE.name());
            ClusterTrial other = runs.get(strategy.name());
            Double speedup = flat.slowest() != null && other.slowest() != null && other.slowest() > 0
                    ? SingleCommand.round(flat.slowest() / other.slowest(), 2) : null;
            Double saved = other.s3Reads() > 0 ? SingleCommand.round(flat.s3Reads() / other.s3Reads(), 2) : null;
            boolean match = flat.sha256Match() && other.sha256Match();
            DemoClusterReport report = new DemoClusterReport("demo", nodes, testbed.size(), testbed.endpoint().kind(),
                    testbed.endpoint().server(), testbed.endpoint().describe(), testbed.bucket(), testbed.key(),
                    testbed.sha256(), strategy.name(), tuning.describe(), runs, speedup, saved, match,
                    Machine.current(loadBefore));
            out.printf(Locale.ROOT, "%n%d nodes fetched s3://%s/%s (%s) from %s %s%n", nodes, testbed.bucket(),
                    testbed.key(), ByteSize.format(testbed.size()), testbed.endpoint().server(),
                    testbed.endpoint().describe());
            Map<String, ClusterTrial> byName = new LinkedHashMap<>();
            runs.forEach((k, v) -> byName.put(Converters.name(Strategy.valueOf(k)), v));
            ClusterTables.printSideBySide(out, byName);
            out.printf(Locale.ROOT, "%n  seconds: from the common start to the node's file in place, verified%n");
            out.printf(Locale.ROOT, "  last node: %s s with %s, %s s with the flat tree (speedup %s);"
                    + " S3 read the object %.2f times instead of %.2f%n", orDash(other.slowest()),
                    Converters.name(strategy), orDash(flat.slowest()), speedup != null ? speedup : "-", other.s3Reads(),
                    flat.s3Reads());
            out.printf(Locale.ROOT, "  sha256             %s%n", match ? "ok on every node" : "MISMATCH");
            out.printf(Locale.ROOT, "  here S3 and the peers share this machine's cores and no link limits them, so the"
                    + " flat tree loses no time%n  to slow S3 connections: the demo shows the S3 reads saved. Times on"
                    + " cloud-like links, against T*: `fleet` (docs/bench.md)%n");
            out.println(Json.line(report));
            out.flush();
            return match ? 0 : 1;
        } finally {
            deleteIfEmpty(dir);
        }
    }

    /**
     * {@code --prefix}: {@code --objects} objects under the prefix on an embedded S3Proxy, fetched by every node with
     * {@code fetchAll}, with the flat tree and with {@code --strategy}; every node's files checked.
     */
    private int prefixDemo(PrintWriter out, Path dir, double loadBefore) {
        try (S3ProxyServer server = S3ProxyServer.start(); S3Fixture s3 = S3Fixture.create(server, "bench")) {
            List<StoredObject> stored = new ArrayList<>();
            for (int i = 0; i < objects; i++) {
                stored.add(s3.putRandom(s3.key(prefix + "part-" + i + ".bin"), size, seed + i));
            }
            String fullPrefix = s3.key(prefix);
            long total = size * objects;
            Map<String, List<DemoPrefixReport.Node>> runs = new LinkedHashMap<>();
            boolean match = true;
            for (Strategy s : List.of(Strategy.FLAT_TREE, strategy)) {
                String name = Converters.name(s);
                LOG.info("{} nodes fetch s3://{}/{} ({} objects) with {}", nodes, s3.bucket(), fullPrefix, objects, name);
                try (ClusterBar bar = noProgress ? null : new ClusterBar(name, nodes, total);
                        TestCluster cluster = TestCluster.builder(s3).nodes(nodes).strategy(s)
                                .directory(dir.resolve(name)).timeout(Duration.ofMinutes(10))
                                .configure((i, b) -> {
                                    tuning.applyTo(b);
                                    security.applyTo(b);
                                    if (bar != null) {
                                        b.addListener(bar.listener(i));
                                    }
                                }).start()) {
                    long started = System.nanoTime();
                    List<FetchAllHandle> handles = new ArrayList<>();
                    for (int i = 0; i < nodes; i++) {
                        handles.add(cluster.node(i).fetchAll(s3.bucket(), fullPrefix, cluster.directory(i)));
                    }
                    List<DemoPrefixReport.Node> results = new ArrayList<>();
                    for (int i = 0; i < nodes; i++) {
                        results.add(DemoPrefixReport.Node.of(i, cluster.nodeId(i), handles.get(i), stored, started));
                    }
                    match &= results.stream().allMatch(DemoPrefixReport.Node::sha256Match);
                    runs.put(s.name(), results);
                }
            }
            DemoPrefixReport report = DemoPrefixReport.of(nodes, s3.bucket(), fullPrefix, objects, size, strategy,
                    tuning.describe(), runs, match, Machine.current(loadBefore));
            out.printf(Locale.ROOT, "%n%d nodes fetched %d objects under s3://%s/%s (%s) from s3proxy%n", nodes, objects,
                    s3.bucket(), fullPrefix, ByteSize.format(total));
            for (Map.Entry<String, List<DemoPrefixReport.Node>> e : runs.entrySet()) {
                out.printf(Locale.ROOT, "  %-10s last node %8s s, S3 read the objects %.2f times%n",
                        Converters.name(Strategy.valueOf(e.getKey())), orDash(DemoPrefixReport.slowest(e.getValue())),
                        DemoPrefixReport.s3Reads(e.getValue(), total));
            }
            out.printf(Locale.ROOT, "  sha256             %s%n", match ? "ok on every node" : "MISMATCH");
            out.printf(Locale.ROOT, "  here S3 and the peers share this machine's cores and no link limits them, so the"
                    + " flat tree loses no time%n  to slow S3 connections: the demo shows the S3 reads saved. Times on"
                    + " cloud-like links, against T*: `fleet` (docs/bench.md)%n");
            out.println(Json.line(report));
            out.flush();
            return match ? 0 : 1;
        }
    }

    private static ProgressBar progressBar(String task, long size) {
        return new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(size)
                .setUnit("MiB", 1 << 20)
                .showSpeed()
                .setUpdateIntervalMillis(200)
                .setStyle(System.console() != null ? ProgressBarStyle.COLORFUL_UNICODE_BLOCK : ProgressBarStyle.ASCII)
                .setConsumer(new ConsoleProgressBarConsumer(System.err))
                .build();
    }

    private static String orDash(Double seconds) {
        return seconds == null ? "-" : String.format(Locale.ROOT, "%.3f", seconds);
    }

    private static void deleteIfEmpty(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // Not empty or not ours to delete: leave it.
        }
    }

    /** One bar over all nodes of a cluster: the sum of every node's bytes in place, out of nodes x size. */
    private static final class ClusterBar implements AutoCloseable {
        private final ProgressBar bar;
        private final AtomicLongArray transferred;

        ClusterBar(String name, int nodes, long size) {
            this.bar = progressBar(name + " x" + nodes, size * nodes);
            this.transferred = new AtomicLongArray(nodes);
        }

        FetchListener listener(int node) {
            return new FetchListener() {
                @Override
                public void bytesTransferred(FetchProgress progress) {
                    transferred.set(node, progress.transferredBytes());
                    long sum = 0;
                    for (int i = 0; i < transferred.length(); i++) {
                        sum += transferred.get(i);
                    }
                    bar.stepTo(sum);
                }
            };
        }

        @Override
        public void close() {
            bar.close();
        }
    }
}
