package io.s3broadcast.bench;

import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.proxy.S3Profile;
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

/** {@code fleet}: an emulated fleet with cloud-like S3 and per-node links; every contender in the same run. */
@Command(name = "fleet",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Broadcast one object to an emulated fleet (per-node links, S3 with per-request rates); our strategies"
                + " and baselines in one run, against the fluid lower bound T*.",
        description = {
            "%nStarts S3Proxy in this JVM with one seeded object behind the testkit's throttling proxy, which gives"
                    + " every GET its own rate and first-byte latency from --s3-profile and counts the bytes it sends"
                    + " to each node. Each node has a download and an upload link (--link, --links) that its S3 and"
                    + " peer traffic share.",
            "%n--level inprocess: N nodes in this JVM; each node's peer channels are shaped (upload by a Netty"
                    + " traffic shaper, download charged to the same limit as its S3 port). Runs anywhere, N up to 64."
                    + " CPU is the bench process's, for the whole fleet.",
            "%nFor every trial and contender (the order rotates every trial) it prints a node table; then a summary"
                    + " with T* = max(S/O, S/D, N*S/(O + sum U)) and which term binds, slowest / T*, mean / T*, S3 bytes"
                    + " / S and CPU; then one JSON line per contender (and --csv: one row per node).",
        },
        footerHeading = "%nExamples:%n",
        footer = {
            "  java -jar broadcast-bench.jar fleet --level inprocess --nodes 8 --size 96MiB --link 10MB \\",
            "      --strategies flat,non-steal,steal,overlap --baselines transfer-manager --s3-profile paper",
            "  java -jar broadcast-bench.jar fleet --level inprocess --nodes 8 --links 6x10MB,2x2.5MB --s3-profile 'paper;aggregate=40MB'",
        })
final class FleetCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(FleetCommand.class);
    static final List<String> BASELINES = List.of("aria2-swarm", "aria2-flat", "transfer-manager");

    @Spec
    CommandSpec spec;

    @Option(names = "--level", paramLabel = "netns|inprocess",
            description = "netns: a namespace and a JVM per node (Linux, root); inprocess: all nodes in this JVM"
                    + " (default: netns as root on Linux, else inprocess).")
    String level;

    @Option(names = "--nodes", defaultValue = "4", description = "Nodes in the fleet (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--size", paramLabel = "SIZE", converter = ByteSize.Converter.class, defaultValue = "96MiB",
            description = "Size of the object (default: ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the object and of the S3 draws (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--no-s3-warmup", negatable = false,
            description = "Do not warm the S3 server and the throttling proxy before the first trial (by default 256"
                    + " ranged GETs of up to 256 KiB of the object from the bench, untimed, so the first contender does"
                    + " not pay for the server's JVM compiling its GET path).")
    boolean noS3Warmup;

    @Option(names = "--multipart", negatable = false,
            description = "Upload the object in 8 MiB parts (above 16 MiB) instead of one PUT. S3Proxy tells no part sizes,"
                    + " so the nodes cannot check a multipart ETag end to end (AWS S3 and LocalStack tell them) and"
                    + " spot-check the pieces they took from peers against S3 after the last piece. Default: one PUT,"
                    + " whose ETag (the MD5) every node checks, as it checks a multipart ETag on AWS S3.")
    boolean multipart;

    @Option(names = "--strategies", split = ",", paramLabel = "NAME", defaultValue = "flat,non-steal,steal,overlap",
            description = "Our strategies to run (default: ${DEFAULT-VALUE}); --strategies none for none.")
    List<String> strategyNames;

    List<Strategy> strategies;

    @Option(names = "--baselines", split = ",", paramLabel = "NAME", defaultValue = "transfer-manager",
            description = "Baselines: aria2-swarm, aria2-flat, transfer-manager, or none (default: ${DEFAULT-VALUE}).")
    List<String> baselines;

    @Option(names = "--trials", defaultValue = "1", description = "Trials per contender (default: ${DEFAULT-VALUE}).")
    int trials;

    @Option(names = "--link", paramLabel = "RATE[/UP]", defaultValue = "10MB",
            description = "Every node's link: 10MB both ways, or 10MB/5MB down/up; MB = 10^6 bytes/s (default: ${DEFAULT-VALUE}).")
    String link;

    @Option(names = "--links", paramLabel = "SPEC",
            description = "Mixed links instead of --link, e.g. 6x10MB,2x2.5MB (counts add up to --nodes).")
    String links;

    /** The congestion control of Linux and of the clouds' Linux images: the namespaces' unless told otherwise. */
    static final String CUBIC = "cubic";
    /** {@code --congestion-control host}: the namespaces keep the machine's. */
    static final String HOST = "host";

    @Option(names = "--latency", paramLabel = "MS", defaultValue = "0",
            description = "One-way latency added to each node's link, milliseconds (netns only; default: ${DEFAULT-VALUE}).")
    double latencyMillis;

    @Option(names = "--s3-profile", paramLabel = "NAME|SPEC", defaultValue = "paper",
            description = "How S3 answers: paper, unlimited, fixed:10MB, lognormal:6MB,0.4, bimodal:4.5MB,10MB,0.3,"
                    + " empirical:3MB,9MB, then optional ;latency=30ms ;connection=20MB ;aggregate=100MB"
                    + " (default: ${DEFAULT-VALUE}).")
    String s3Profile;

    @Option(names = "--s3-aggregate", paramLabel = "RATE", converter = ByteSize.Converter.class,
            description = "Aggregate S3 cap O for the whole fleet (a hot object); overrides the profile's.")
    Long s3Aggregate;

    @Option(names = "--congestion-control", paramLabel = "NAME", defaultValue = FleetCommand.CUBIC,
            description = "TCP congestion control the nodes send to each other with (netns only: set in every node's"
                    + " namespace): cubic, Linux's default and the clouds' (default: ${DEFAULT-VALUE}), another the"
                    + " kernel offers (e.g. bbr, reno), or host to keep this machine's.")
    String congestionControl;

    @Option(names = "--cpu-per-node", paramLabel = "CORES",
            description = "CPU share per node process, e.g. 0.25 (netns only, through a cgroup quota).")
    Double cpuPerNode;

    @Option(names = "--join", paramLabel = "COUNT@TIME",
            description = "COUNT nodes (the last ones) start fetching TIME after the others, e.g. 2@5s: they join the"
                    + " running broadcast late (the fleet then uses the S3-prefix registry on the bench's S3 server)."
                    + " Cluster strategies only, no baselines.")
    String join;

    @Option(names = "--leave", paramLabel = "COUNT@TIME",
            description = "COUNT nodes (the ones before the joiners) close their Broadcast TIME after the start, e.g."
                    + " 2@5s: a graceful leave mid-run; they are not waited for or checked. With --join or --leave"
                    + " each trial also records the aggregate throughput per 250 ms (throughput in the JSON) and, with"
                    + " --chart, draws it.")
    String leave;

    @Option(names = "--chart", paramLabel = "FILE",
            description = "With --join/--leave: draw each contender's first trial's aggregate throughput over time to"
                    + " FILE (PNG), with its CSV beside it.")
    Path chartFile;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the JSON lines to FILE.")
    Path jsonFile;

    @Option(names = "--csv", paramLabel = "FILE", description = "Also write one CSV row per node and trial to FILE"
            + " (default: beside --json, with .csv).")
    Path csvFile;

    @Option(names = "--expect-timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "60s", description = "How long nodes wait for each other (default: ${DEFAULT-VALUE}).")
    Duration expectTimeout;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "15m", description = "A trial still running after this is cancelled (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--work-dir", paramLabel = "DIR",
            description = "Where the nodes' directories go (a new temporary directory inside it; default: java.io.tmpdir).")
    Path workDir;

    @Option(names = "--keep-logs", paramLabel = "DIR",
            description = "netns: copy each node's stdout and stderr (its log) to DIR/<contender>-<trial>/ before the"
                    + " trial's directory is deleted; each node's JSON line then has its throughput samples.")
    Path keepLogs;

    @Option(names = "--node-jvm-option", paramLabel = "OPTION",
            description = "netns: one more option for the node JVMs (ours and the Transfer Manager's), after their flags and class-data archive"
                    + " (repeatable; a later flag wins), e.g. -XX:TieredStopAtLevel=1 to try other JIT settings, or"
                    + " -XX:StartFlightRecording=filename=/tmp/jfr/ to see where a node's CPU goes.")
    List<String> nodeJvmOptions = new ArrayList<>();

    @Option(names = "--calibrate",
            description = "Check the instrument instead of running contenders: link rates (within 5%%), the proxy's"
                    + " per-request rates against the profile's distribution, one node's flat fetch against the"
                    + " profile's prediction.")
    boolean calibrate;

    @Mixin
    ClassDataOptions cds = new ClassDataOptions();

    @Mixin
    NodeTuning tuning;

    @Override
    public Integer call() throws Exception {
        double loadBefore = Machine.loadAverage();
        FleetSpec fleet = validate();
        Path dir = workDir != null ? Files.createTempDirectory(Files.createDirectories(workDir), "s3bf-")
                : Files.createTempDirectory("s3bf-");
        PrintWriter out = spec.commandLine().getOut();
        if (calibrate) {
            try (Testbed testbed = Testbed.embedded(size, seed, multipart)) {
                out.printf(Locale.ROOT, "%nfleet --calibrate: %s level, S3 %s%n", fleet.level(), fleet.profile().describe());
                List<FleetCalibration.Check> checks = FleetCalibration.run(fleet, testbed, dir, out);
                boolean pass = checks.stream().allMatch(FleetCalibration.Check::pass);
                Map<String, Object> summary = new LinkedHashMap<>();
                summary.put("command", "fleet-calibrate");
                summary.put("level", fleet.level());
                summary.put("pass", pass);
                summary.put("checks", checks);
                summary.put("machine", Machine.current(loadBefore));
                out.printf(Locale.ROOT, "%ncalibration %s%n", pass ? "passed" : "FAILED");
                out.println(Json.line(summary));
                out.flush();
                return pass ? 0 : 1;
            } finally {
                FleetFiles.deleteTree(dir);
            }
        }
        try {
            List<FleetReport> reports = execute(fleet, loadBefore, out, dir);
            if (fleet.churn().any()) {
                ChurnChart.print(out, fleet, reports);
                if (chartFile != null) {
                    ChurnChart.write(chartFile, fleet, reports);
                }
            }
            List<String> lines = reports.stream().map(Json::line).toList();
            lines.forEach(out::println);
            out.flush();
            writeFiles(lines, reports);
            return reports.stream().allMatch(FleetReport::sha256Match) ? 0 : 1;
        } finally {
            FleetFiles.deleteTree(dir);
        }
    }

    /** Runs every trial of every contender on the fleet, prints the tables, returns one report per contender. */
    List<FleetReport> execute(FleetSpec fleet, double loadBefore, PrintWriter out, Path dir) throws Exception {
        try (Testbed testbed = Testbed.embedded(size, seed, multipart);
             FleetLevel run = openLevel(fleet, testbed, dir)) {
            List<String> contenders = new ArrayList<>();
            strategies.forEach(s -> contenders.add(Converters.name(s)));
            contenders.addAll(baselines);
            Map<String, List<FleetTrial>> results = new LinkedHashMap<>();
            contenders.forEach(c -> results.put(c, new ArrayList<>()));
            FluidBound tStar = FluidBound.of(size, fleet.profile().aggregateCap(), fleet.links());
            String cc = congestionControlUsed(fleet);
            out.printf(Locale.ROOT, "%nfleet: %s level, %d nodes, %s (%s), S3 %s, TCP %s between nodes%n", fleet.level(),
                    nodes, ByteSize.format(size), multipart ? "multipart upload" : "one PUT", fleet.profile().describe(),
                    cc == null ? "(unknown congestion control)" : cc
                            + (fleet.congestionControl() == null ? " (the machine's)" : ""));
            if (fleet.churn().any()) {
                out.printf(Locale.ROOT, "churn: %s%n", fleet.churn().describe());
            }
            out.printf(Locale.ROOT, "T* = %.3f s (binds: %s; S/O %.3f, S/D %.3f, N*S/(O+sum U) %.3f)%n", tStar.seconds(),
                    tStar.binds(), tStar.s3Term(), tStar.downloadTerm(), tStar.uploadTerm());
            out.flush();
            if (!noS3Warmup) {
                out.printf(Locale.ROOT, "S3 warmed before the first trial: %s%n", run.warmUp());
                out.flush();
            }
            for (int t = 1; t <= trials; t++) {
                List<String> order = new ArrayList<>(contenders);
                Collections.rotate(order, -(t - 1));
                for (String c : order) {
                    LOG.info("trial {}/{}: {} on {} nodes ({})", t, trials, c, nodes, fleet.level());
                    FleetTrial trial = run.run(c, t);
                    results.get(c).add(trial);
                    FleetTables.printNodes(out, c + ", trial " + t, trial, tStar);
                    out.flush();
                }
            }
            List<FleetReport> reports = new ArrayList<>();
            for (Map.Entry<String, List<FleetTrial>> e : results.entrySet()) {
                reports.add(report(fleet, e.getKey(), e.getValue(), tStar, loadBefore));
            }
            FleetTables.printSummary(out, tStar, reports);
            out.flush();
            return reports;
        }
    }

    /** Validates the options (as the command line would) and returns the fleet they describe. */
    FleetSpec spec() {
        return validate();
    }

    private FleetLevel openLevel(FleetSpec fleet, Testbed testbed, Path dir) throws IOException, InterruptedException {
        return switch (fleet.level()) {
            case "inprocess" -> new InProcessFleet(fleet, testbed, dir);
            case "netns" -> NetnsFleet.open(fleet, testbed, dir, cds.cacheDir()).keepLogs(keepLogs)
                    .nodeJvmOptions(nodeJvmOptions);
            default -> throw new IllegalStateException(fleet.level());
        };
    }

    private void writeFiles(List<String> lines, List<FleetReport> reports) throws IOException {
        Path csv = csvFile;
        if (jsonFile != null) {
            Files.write(jsonFile, lines);
            if (csv == null) {
                String name = jsonFile.getFileName().toString();
                csv = jsonFile.resolveSibling(name.endsWith(".json") ? name.substring(0, name.length() - 5) + ".csv"
                        : name + ".csv");
            }
        }
        if (csv != null) {
            Files.write(csv, FleetTables.csv(reports));
        }
    }

    FleetReport report(FleetSpec fleet, String contender, List<FleetTrial> runs, FluidBound tStar, double loadBefore) {
        Double slowest = median(runs, FleetTrial::slowest);
        Double mean = median(runs, FleetTrial::mean);
        double s3 = runs.stream().mapToDouble(FleetTrial::s3Reads).average().orElse(0);
        List<Double> perNodeCpu = runs.stream().flatMap(r -> r.nodes().stream()).map(FleetNode::cpuSeconds)
                .filter(Objects::nonNull).toList();
        Double cpuPerNodeSeconds = !perNodeCpu.isEmpty()
                ? SingleCommand.round(perNodeCpu.stream().mapToDouble(d -> d).average().orElse(0), 2)
                : SingleCommand.round(runs.stream().mapToDouble(FleetTrial::cpuSeconds).average().orElse(0) / nodes, 2);
        double util = runs.stream().mapToDouble(FleetTrial::cpuUtilisation).average().orElse(0);
        boolean cpuBound = runs.stream().anyMatch(FleetReport::isCpuBound);
        boolean ours = !BASELINES.contains(contender);
        return new FleetReport("fleet", fleet.level(), contender, ours ? "strategy" : "baseline", nodes, size, runs.size(),
                fleet.profile().describe(), fleet.links().stream().map(FleetLink::describe).toList(), latencyMillis,
                congestionControlUsed(fleet), cpuPerNode, tStar, slowest, mean, tStar.ratio(slowest), tStar.ratio(mean),
                SingleCommand.round(s3, 3), cpuPerNodeSeconds, SingleCommand.round(util, 3), cpuBound,
                !runs.isEmpty() && runs.stream().allMatch(FleetTrial::sha256Match),
                ours ? tuning.describe() : Map.of(), runs, Machine.current(loadBefore));
    }

    static Double median(List<FleetTrial> runs, Function<FleetTrial, Double> value) {
        return ClusterCommand.median(runs.stream().map(value).toList());
    }

    private FleetSpec validate() {
        if (nodes < 1) {
            throw new ParameterException(spec.commandLine(), "--nodes must be at least 1");
        }
        if (trials < 1) {
            throw new ParameterException(spec.commandLine(), "--trials must be at least 1");
        }
        if (size < 1) {
            throw new ParameterException(spec.commandLine(), "--size must be positive");
        }
        List<Strategy> parsed = new ArrayList<>();
        for (String name : strategyNames == null ? List.<String>of() : strategyNames) {
            if (name.isBlank() || name.trim().equalsIgnoreCase("none")) {
                continue;
            }
            try {
                parsed.add(Strategy.parse(name.trim()));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        strategies = parsed.stream().distinct().toList();
        List<String> b = new ArrayList<>();
        for (String name : baselines == null ? List.<String>of() : baselines) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            if (n.equals("none") || n.isEmpty()) {
                continue;
            }
            if (!BASELINES.contains(n)) {
                throw new ParameterException(spec.commandLine(), "unknown baseline '" + name + "': use "
                        + String.join(", ", BASELINES) + " or none");
            }
            if (!b.contains(n)) {
                b.add(n);
            }
        }
        baselines = b;
        if (strategies.isEmpty() && baselines.isEmpty() && !calibrate) {
            throw new ParameterException(spec.commandLine(), "nothing to run: give --strategies or --baselines");
        }
        String lvl = level != null ? level.toLowerCase(Locale.ROOT) : NetnsFleet.available() == null ? "netns" : "inprocess";
        if (!lvl.equals("netns") && !lvl.equals("inprocess")) {
            throw new ParameterException(spec.commandLine(), "--level is netns or inprocess, not '" + level + "'");
        }
        if (lvl.equals("netns")) {
            String why = NetnsFleet.available();
            if (why != null) {
                throw new ParameterException(spec.commandLine(), "--level netns is not possible here: " + why
                        + ". Use --level inprocess (all nodes in this JVM, shaped in user space).");
            }
        } else {
            if (baselines.contains("aria2-swarm")) {
                throw new ParameterException(spec.commandLine(),
                        "aria2-swarm needs a network address per node: run it with --level netns");
            }
            if (latencyMillis > 0) {
                throw new ParameterException(spec.commandLine(), "--latency needs --level netns (tc netem)");
            }
            if (cpuPerNode != null) {
                throw new ParameterException(spec.commandLine(),
                        "--cpu-per-node needs --level netns (one process per node in its own cgroup)");
            }
        }
        String cc = null;
        if (lvl.equals("netns") && !congestionControl.equals(HOST)) {
            String why = Namespaces.congestionControlMissing(congestionControl);
            if (why != null) {
                throw new ParameterException(spec.commandLine(), why);
            }
            cc = congestionControl;
        }
        List<FleetLink> fleetLinks;
        S3Profile profile;
        try {
            fleetLinks = FleetLink.of(links, link, nodes);
            profile = S3Profile.parse(s3Profile);
            if (s3Aggregate != null) {
                profile = profile.withAggregateCap(s3Aggregate);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        for (String b2 : baselines) {
            String missing = FleetTools.missingFor(b2);
            if (missing != null) {
                throw new ParameterException(spec.commandLine(), missing);
            }
        }
        Churn churn;
        try {
            churn = join == null && leave == null ? Churn.NONE : Churn.parse(join, leave, nodes);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (churn.any() && (!baselines.isEmpty() || strategies.stream().anyMatch(s -> !s.isCluster()))) {
            throw new ParameterException(spec.commandLine(), "--join and --leave are for our cluster strategies"
                    + " (non-steal, steal, overlap) with --baselines none");
        }
        return new FleetSpec(lvl, nodes, size, seed, List.copyOf(fleetLinks), latencyMillis, profile, cpuPerNode, tuning,
                expectTimeout, timeout, churn, cc);
    }

    /**
     * The congestion control the nodes' traffic to each other ran with: the namespaces' when set, else the machine's
     * (in-process nodes talk over this machine's loopback), null when unknown.
     */
    static String congestionControlUsed(FleetSpec fleet) {
        return fleet.congestionControl() != null ? fleet.congestionControl() : Namespaces.machineCongestionControl();
    }

    /**
     * What a fleet level needs to know.
     *
     * @param congestionControl the TCP congestion control set in every node's namespace (netns), or null to keep the
     *     machine's
     */
    record FleetSpec(String level, int nodes, long size, long seed, List<FleetLink> links, double latencyMillis,
            S3Profile profile, Double cpuPerNode, NodeTuning tuning, Duration expectTimeout, Duration timeout,
            Churn churn, String congestionControl) {
    }

    /** One level of emulation: runs one trial of one contender on the fleet. */
    interface FleetLevel extends AutoCloseable {
        FleetTrial run(String contender, int trial) throws IOException, InterruptedException;

        /** Warms the level's S3 path before the first trial, untimed ({@link S3Warmup}); returns what it read. */
        String warmUp() throws InterruptedException;

        @Override
        void close();
    }
}
