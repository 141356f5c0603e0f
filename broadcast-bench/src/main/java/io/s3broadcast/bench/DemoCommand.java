package io.s3broadcast.bench;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * cluster strategy, side by side; one node with the flat tree where no cluster engine is on the classpath.
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
            "%nWithout a cluster engine on the classpath (broadcast-p2p's), it fetches once, on one node, with"
                    + " the flat tree.",
        },
        footerHeading = "%nExample:%n",
        footer = "  java -jar broadcast-bench.jar demo --nodes 4 --size 96MiB --strategy steal")
final class DemoCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(DemoCommand.class);

    @Spec
    CommandSpec spec;

    /** The cluster strategy shown against the flat tree unless {@code --strategy}. */
    static final Strategy DEFAULT_CLUSTER_STRATEGY = Strategy.STEAL;

    @Option(names = "--size", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "Size of the object, e.g. 16MiB, 1GiB (default: 96MiB with a cluster, 256MiB on one node).")
    Long size;

    @Option(names = "--nodes", defaultValue = "4", description = "Nodes in the cluster (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--strategy", paramLabel = "non-steal|steal|overlap", converter = Converters.StrategyConverter.class,
            description = "Cluster strategy to compare with the flat tree (default: steal).")
    Strategy strategy;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the random object (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    NodeTuning tuning;

    @Option(names = "--output-dir", paramLabel = "DIR",
            description = "One node: where to put the object (default: a new temporary directory, deleted afterwards"
                    + " unless --keep). A cluster: where the nodes' directories go, deleted afterwards.")
    Path outputDir;

    @Option(names = "--keep", description = "One node: keep the fetched file (always kept with --output-dir).")
    boolean keep;

    @Option(names = "--no-progress", negatable = false, description = "No progress bar.")
    boolean noProgress;

    @Override
    public Integer call() throws Exception {
        if (size != null && size < 0) {
            throw new ParameterException(spec.commandLine(), "--size must not be negative");
        }
        if (nodes < 1) {
            throw new ParameterException(spec.commandLine(), "--nodes must be at least 1");
        }
        if (strategy != null && !strategy.isCluster()) {
            throw new ParameterException(spec.commandLine(), "--strategy names the cluster strategy shown next to the"
                    + " flat tree: non-steal, steal or overlap");
        }
        if (ClusterEngine.present()) {
            return cluster(size != null ? size : 96L << 20, strategy != null ? strategy : DEFAULT_CLUSTER_STRATEGY);
        }
        LOG.info("no cluster engine on the classpath: fetching on one node with the flat tree");
        return single(size != null ? size : 256L << 20);
    }

    /** The flat tree and {@code clusterStrategy} on {@code nodes} nodes in this JVM, side by side. */
    private int cluster(long size, Strategy clusterStrategy) throws Exception {
        double loadBefore = Machine.loadAverage();
        Path dir = outputDir != null ? Files.createTempDirectory(Files.createDirectories(outputDir), "s3broadcast-demo-")
                : Files.createTempDirectory("s3broadcast-demo-");
        PrintWriter out = spec.commandLine().getOut();
        try (Testbed testbed = Testbed.embedded(size, seed)) {
            LocalCluster.Options options = new LocalCluster.Options(nodes, Strategy.FLAT_TREE, tuning, -1, 0, 0,
                    Duration.ofSeconds(60), Duration.ofMinutes(10));
            Map<String, ClusterTrial> runs = new LinkedHashMap<>();
            for (Strategy s : List.of(Strategy.FLAT_TREE, clusterStrategy)) {
                String name = Converters.name(s);
                LOG.info("{} nodes fetch s3://{}/{} with {}", nodes, testbed.bucket(), testbed.key(), name);
                try (ClusterBar bar = noProgress ? null : new ClusterBar(name, nodes, size)) {
                    runs.put(s.name(), LocalCluster.run(testbed, options.withStrategy(s), dir, 1,
                            bar != null ? bar::listener : null));
                }
            }
            ClusterTrial flat = runs.get(Strategy.FLAT_TREE.name());
            ClusterTrial other = runs.get(clusterStrategy.name());
            Double speedup = flat.slowest() != null && other.slowest() != null && other.slowest() > 0
                    ? SingleCommand.round(flat.slowest() / other.slowest(), 2) : null;
            Double saved = other.s3Reads() > 0 ? SingleCommand.round(flat.s3Reads() / other.s3Reads(), 2) : null;
            boolean match = flat.sha256Match() && other.sha256Match();
            DemoClusterReport report = new DemoClusterReport("demo", nodes, testbed.size(), testbed.endpoint().kind(),
                    testbed.endpoint().server(), testbed.endpoint().describe(), testbed.bucket(), testbed.key(),
                    testbed.sha256(), clusterStrategy.name(), tuning.describe(), runs, speedup, saved, match,
                    Machine.current(loadBefore));
            out.printf(Locale.ROOT, "%n%d nodes fetched s3://%s/%s (%s) from %s %s%n", nodes, testbed.bucket(),
                    testbed.key(), ByteSize.format(testbed.size()), testbed.endpoint().server(),
                    testbed.endpoint().describe());
            Map<String, ClusterTrial> byName = new LinkedHashMap<>();
            runs.forEach((k, v) -> byName.put(Converters.name(Strategy.valueOf(k)), v));
            ClusterTables.printSideBySide(out, byName);
            out.printf(Locale.ROOT, "%n  seconds: from the common start to the node's file in place, verified%n");
            out.printf(Locale.ROOT, "  %s: the last node finished %sx sooner than with the flat tree, reading the object"
                    + " from S3 %.2f times instead of %.2f%n", Converters.name(clusterStrategy),
                    speedup != null ? speedup : "-", other.s3Reads(), flat.s3Reads());
            out.printf(Locale.ROOT, "  sha256             %s%n", match ? "ok on every node" : "MISMATCH");
            out.println(Json.line(report));
            out.flush();
            return match ? 0 : 1;
        } finally {
            deleteIfEmpty(dir);
        }
    }

    /** One node, the flat tree: the demo as it was before the cluster engine. */
    private int single(long size) throws Exception {
        double loadBefore = Machine.loadAverage();
        boolean keepFile = keep || outputDir != null;
        Path dir = outputDir != null ? Files.createDirectories(outputDir) : Files.createTempDirectory("s3broadcast-demo-");
        PrintWriter out = spec.commandLine().getOut();
        Path file = null;
        try (Testbed testbed = Testbed.embedded(size, seed)) {
            CompletedFetch done;
            try (Broadcast broadcast = tuning.applyTo(testbed.endpoint().configure(Broadcast.builder()))
                    .destinationDirectory(dir).build();
                    ProgressBar bar = noProgress ? null : progressBar(size)) {
                FetchRequest.Builder request = FetchRequest.builder().bucket(testbed.bucket()).key(testbed.key())
                        .destination(dir.resolve(Path.of(testbed.key()).getFileName()));
                if (bar != null) {
                    request.addListener(new BarListener(bar));
                }
                done = broadcast.fetch(request.build()).join();
            }
            file = done.path();
            boolean match = Sha256.of(file).equals(testbed.sha256());
            double seconds = done.duration().toNanos() / 1e9;
            DemoReport report = new DemoReport("demo", testbed.size(), testbed.endpoint().kind(),
                    testbed.endpoint().server(), testbed.endpoint().describe(), testbed.bucket(), testbed.key(),
                    done.strategy().name(), file.toAbsolutePath().toString(), keepFile, Files.size(file),
                    SingleCommand.round(seconds, 3), SingleCommand.round(done.megabytesPerSecond(), 2),
                    done.bytesFromS3(), done.bytesFromPeers(), done.checksumVerified(), testbed.sha256(), match,
                    Machine.current(loadBefore));
            print(out, report);
            out.println(Json.line(report));
            out.flush();
            return match ? 0 : 1;
        } finally {
            if (!keepFile) {
                if (file != null) {
                    Files.deleteIfExists(file);
                }
                deleteIfEmpty(dir);
            }
        }
    }

    private static ProgressBar progressBar(long size) {
        return progressBar("fetch", size);
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

    private static void print(PrintWriter out, DemoReport r) {
        out.printf(Locale.ROOT, "%nfetched s3://%s/%s from %s %s%n", r.bucket(), r.key(), r.server(), r.endpoint());
        out.printf(Locale.ROOT, "  path               %s%s%n", r.path(), r.kept() ? "" : " (deleted on exit; --keep to keep it)");
        out.printf(Locale.ROOT, "  bytes              %d (%s)%n", r.bytes(), ByteSize.format(r.bytes()));
        out.printf(Locale.ROOT, "  seconds            %.3f%n", r.seconds());
        out.printf(Locale.ROOT, "  MB/s               %.1f%n", r.rate());
        out.printf(Locale.ROOT, "  bytes from S3      %d%n", r.bytesFromS3());
        out.printf(Locale.ROOT, "  checksum verified  %s%n", r.checksumVerified()
                ? "yes, against S3's full-object checksum" : "pieces only (S3 sent no full-object checksum)");
        out.printf(Locale.ROOT, "  sha256             %s%n", r.sha256Match() ? "ok" : "MISMATCH");
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

    /** Moves the bar as pieces land; never blocks (the bar renders on its own thread). */
    private static final class BarListener implements FetchListener {
        private final ProgressBar bar;

        BarListener(ProgressBar bar) {
            this.bar = bar;
        }

        @Override
        public void fetchInitiated(FetchProgress progress) {
            if (progress.totalBytes() >= 0) {
                bar.maxHint(progress.totalBytes());
            }
        }

        @Override
        public void bytesTransferred(FetchProgress progress) {
            bar.stepTo(progress.transferredBytes());
        }

        @Override
        public void fetchComplete(CompletedFetch result) {
            bar.stepTo(result.size());
        }
    }
}
