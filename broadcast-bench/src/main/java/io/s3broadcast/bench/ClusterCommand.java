package io.s3broadcast.bench;

import io.s3broadcast.Strategy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code cluster}: N nodes in this JVM, each strategy in turn, completion time of every node. */
@Command(name = "cluster",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Broadcast one object to N nodes in this JVM with each strategy; time every node.",
        description = {
            "%nStarts S3Proxy in this JVM and uploads one seeded object. Then, for each trial and each strategy (the"
                    + " order rotates every trial), starts N Broadcast nodes at once, each with its own S3 client,"
                    + " directory and loopback peer port, all in one static registry, and records when each node has"
                    + " the object in place. Prints a table per strategy and one JSON line per strategy: fastest,"
                    + " average and slowest node, S3 bytes over the object size, SHA-256 of every node's file.",
            "%nWith --throttle-node I, node I reads S3 through a proxy limiting each of its connections to"
                    + " --throttle-rate; --node-rate does the same for every other node.",
        },
        footerHeading = "%nExamples:%n",
        footer = {
            "  java -jar broadcast-bench.jar cluster --nodes 8 --size 256MiB --strategies flat,non-steal,steal,overlap --trials 3",
            "  java -jar broadcast-bench.jar cluster --nodes 4 --size 96MiB --strategies non-steal,steal \\",
            "      --connections 4 --range-size 1MiB --work-size 2 --node-rate 4MiB --throttle-node 0 --throttle-rate 400KiB",
        })
final class ClusterCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterCommand.class);

    @Spec
    CommandSpec spec;

    @Option(names = "--nodes", defaultValue = "4", description = "Nodes in the cluster (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--size", paramLabel = "SIZE", converter = ByteSize.Converter.class, defaultValue = "256MiB",
            description = "Size of the object (default: ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the random object (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--strategies", split = ",", paramLabel = "NAME", converter = Converters.StrategyConverter.class,
            defaultValue = "flat,non-steal,steal,overlap",
            description = "Strategies to run, comma-separated (default: ${DEFAULT-VALUE}).")
    List<Strategy> strategies;

    @Option(names = "--trials", defaultValue = "1", description = "Trials per strategy (default: ${DEFAULT-VALUE}).")
    int trials;

    @Mixin
    NodeTuning tuning;

    @Mixin
    PeerSecurityOptions security;

    @Option(names = "--throttle-node", paramLabel = "I",
            description = "Index (0 to N-1) of a node whose S3 connections are each limited to --throttle-rate.")
    Integer throttleNode;

    @Option(names = "--throttle-rate", paramLabel = "BYTES_PER_S", converter = ByteSize.Converter.class,
            description = "Bytes per second per S3 connection of the throttled node, e.g. 1MiB.")
    Long throttleRate;

    @Option(names = "--node-rate", paramLabel = "BYTES_PER_S", converter = ByteSize.Converter.class,
            description = "Bytes per second per S3 connection of every other node (default: unlimited, no proxy).")
    Long nodeRate;

    @Option(names = "--expect-timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "60s", description = "How long nodes wait for each other to join (default: ${DEFAULT-VALUE}).")
    Duration expectTimeout;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "10m", description = "A trial still running after this is cancelled (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--work-dir", paramLabel = "DIR",
            description = "Where the nodes' directories go (a new temporary directory inside it; default: java.io.tmpdir).")
    Path workDir;

    @Override
    public Integer call() throws Exception {
        double loadBefore = Machine.loadAverage();
        validate();
        LocalCluster.Options options = new LocalCluster.Options(nodes, strategies.get(0), tuning,
                throttleNode != null ? throttleNode : -1, throttleRate != null ? throttleRate : 0,
                nodeRate != null ? nodeRate : 0, expectTimeout, timeout, security);
        Path dir = workDir != null ? Files.createTempDirectory(Files.createDirectories(workDir), "s3broadcast-cluster-")
                : Files.createTempDirectory("s3broadcast-cluster-");
        PrintWriter out = spec.commandLine().getOut();
        try (Testbed testbed = Testbed.embedded(size, seed)) {
            Map<Strategy, List<ClusterTrial>> results = runAll(testbed, options, strategies, trials, dir);
            List<ClusterReport> reports = new ArrayList<>();
            for (Map.Entry<Strategy, List<ClusterTrial>> e : results.entrySet()) {
                reports.add(report(testbed, options.withStrategy(e.getKey()), e.getValue(), loadBefore));
                ClusterTables.printNodes(out, Converters.name(e.getKey()) + ", trial " + e.getValue().size(),
                        last(e.getValue()));
            }
            ClusterTables.printSummary(out, reports);
            for (ClusterReport report : reports) {
                out.println(Json.line(report));
            }
            out.flush();
            boolean ok = reports.stream().allMatch(ClusterReport::sha256Match);
            return ok ? 0 : 1;
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    /** Runs every trial of every strategy; in trial t the order of the strategies is rotated by t. */
    static Map<Strategy, List<ClusterTrial>> runAll(Testbed testbed, LocalCluster.Options options,
            List<Strategy> strategies, int trials, Path dir) throws IOException, InterruptedException {
        Map<Strategy, List<ClusterTrial>> results = new LinkedHashMap<>();
        strategies.forEach(s -> results.put(s, new ArrayList<>()));
        for (int t = 1; t <= trials; t++) {
            List<Strategy> order = new ArrayList<>(results.keySet());
            Collections.rotate(order, -(t - 1));
            for (Strategy s : order) {
                LOG.info("trial {}/{}: {} on {} nodes", t, trials, Converters.name(s), options.nodes());
                ClusterTrial trial = LocalCluster.run(testbed, options.withStrategy(s), dir, t, null);
                LOG.info("trial {}/{}: {}: fastest {} s, slowest {} s, S3 reads {}, sha256 {}", t, trials,
                        Converters.name(s), trial.fastest(), trial.slowest(), trial.s3Reads(),
                        trial.sha256Match() ? "ok" : "MISMATCH");
                results.get(s).add(trial);
            }
        }
        return results;
    }

    static ClusterReport report(Testbed testbed, LocalCluster.Options options, List<ClusterTrial> runs,
            double loadBefore) {
        boolean throttled = options.throttleNode() >= 0;
        return new ClusterReport("cluster", options.strategy().name(), options.nodes(), testbed.size(), runs.size(),
                testbed.endpoint().kind(), testbed.endpoint().server(), testbed.endpoint().describe(), testbed.bucket(),
                testbed.key(), testbed.sha256(), options.tuning().describe(),
                throttled ? options.throttleNode() : null, throttled ? options.throttleRate() : null,
                options.nodeRate() > 0 ? options.nodeRate() : null,
                median(runs, ClusterTrial::fastest), median(runs, ClusterTrial::average), median(runs, ClusterTrial::slowest),
                SingleCommand.round(runs.stream().mapToDouble(ClusterTrial::s3Reads).average().orElse(0), 3),
                !runs.isEmpty() && runs.stream().allMatch(ClusterTrial::sha256Match), runs,
                Machine.current(loadBefore));
    }

    /** The median of a per-trial value; null when any trial lacks it (a node failed). */
    static Double median(List<ClusterTrial> runs, Function<ClusterTrial, Double> value) {
        return median(runs.stream().map(value).toList());
    }

    /** The median of per-trial values, rounded to ms; null when there are none or any is null (a node failed). */
    static Double median(List<Double> values) {
        if (values.isEmpty() || values.stream().anyMatch(Objects::isNull)) {
            return null;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int m = sorted.size() / 2;
        double median = sorted.size() % 2 == 1 ? sorted.get(m) : (sorted.get(m - 1) + sorted.get(m)) / 2;
        return SingleCommand.round(median, 3);
    }

    private static ClusterTrial last(List<ClusterTrial> runs) {
        return runs.get(runs.size() - 1);
    }

    private void validate() {
        if (nodes < 1) {
            throw new ParameterException(spec.commandLine(), "--nodes must be at least 1");
        }
        if (size < 0) {
            throw new ParameterException(spec.commandLine(), "--size must not be negative");
        }
        if (trials < 1) {
            throw new ParameterException(spec.commandLine(), "--trials must be at least 1");
        }
        if (strategies == null || strategies.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--strategies names none");
        }
        strategies = strategies.stream().distinct().toList();
        if ((throttleNode == null) != (throttleRate == null)) {
            throw new ParameterException(spec.commandLine(), "--throttle-node and --throttle-rate go together");
        }
        if (throttleNode != null && (throttleNode < 0 || throttleNode >= nodes)) {
            throw new ParameterException(spec.commandLine(), String.format(Locale.ROOT,
                    "--throttle-node %d is not one of the nodes 0-%d", throttleNode, nodes - 1));
        }
        if (throttleRate != null && throttleRate <= 0 || nodeRate != null && nodeRate <= 0) {
            throw new ParameterException(spec.commandLine(), "rates must be positive");
        }
    }
}
