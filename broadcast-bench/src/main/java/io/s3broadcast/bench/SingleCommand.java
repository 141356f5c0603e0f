package io.s3broadcast.bench;

import io.s3broadcast.testkit.proxy.FaultProxy;
import io.s3broadcast.testkit.proxy.S3Profile;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.regions.Region;

/** {@code single}: one object, one endpoint; ours against the Transfer Manager and a plain GetObject. */
@Command(name = "single",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Time ours, the SDK's Transfer Manager (CRT) and a plain GetObject on one object.",
        description = {
            "%nStarts S3Proxy in this JVM (unless --endpoint/--bucket/--key name an existing object), uploads a"
                    + " seeded random object of --size bytes, streamed, and downloads it --trials times with each"
                    + " method, in an order that rotates every trial. Each download goes to a fresh file in a"
                    + " temporary directory, is checked against the object's SHA-256 (untimed) and deleted.",
            "%nPrints a table on stdout, then one JSON line summarising the run; logs go to stderr.",
        },
        footerHeading = "%nExamples:%n",
        footer = {
            "  java -jar broadcast-bench.jar single --size 1GiB --trials 3",
            "  java -jar broadcast-bench.jar single --size 1GiB --connections 8 \\",
            "      --range-size 16MiB --http-client crt",
            "  java -jar broadcast-bench.jar single --endpoint http://127.0.0.1:9000 \\",
            "      --bucket b --key big.bin",
        })
final class SingleCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(SingleCommand.class);
    private static final List<String> ALL_METHODS =
            List.of(BroadcastMethod.NAME, TransferManagerMethod.NAME, GetObjectMethod.NAME, Aria2Method.NAME);
    /** How long one download in a process of its own may take. */
    private static final java.time.Duration PROCESS_TIMEOUT = java.time.Duration.ofMinutes(30);

    @Spec
    CommandSpec spec;

    @Option(names = "--size", paramLabel = "SIZE", converter = ByteSize.Converter.class, defaultValue = "1GiB",
            description = "Size of the object uploaded to the embedded server, e.g. 8MiB, 1GiB (default: ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the random object (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--trials", defaultValue = "3", description = "Timed downloads per method (default: ${DEFAULT-VALUE}).")
    int trials;

    @Option(names = "--warmup", defaultValue = "1",
            description = "Untimed rounds of every method before the trials, so no trial pays for JIT compilation,"
                    + " native library loading or first connections (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--methods", split = ",", paramLabel = "NAME",
            description = "Methods to run, comma-separated: ours, transferManager, getObject, aria2 (default: all;"
                    + " aria2 only when aria2c is installed).")
    List<String> methods;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "16",
            description = "Concurrent ranged GETs for ours and maxConcurrency for the Transfer Manager, the same for"
                    + " both (default: ${DEFAULT-VALUE}, Broadcast's default).")
    Integer connections;

    @Option(names = "--range-size", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "Bytes per ranged GET for ours and minimumPartSizeInBytes for the Transfer Manager, the"
                    + " same for both (default: each its own: Broadcast sizes ranges from the object and its"
                    + " connections, the Transfer Manager uses 8 MiB parts).")
    Long rangeSize;

    @Option(names = "--piece-size", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "Bytes per piece for ours (default: 1MiB).")
    Long pieceSize;

    @Option(names = "--http-client", paramLabel = "netty|crt",
            description = "SDK HTTP client under ours (default: netty). The Transfer Manager always uses the CRT S3 client.")
    String httpClient;

    @Option(names = "--tm-target-gbps", paramLabel = "GBPS",
            description = "targetThroughputInGbps of the Transfer Manager's CRT client (default: "
                    + TransferManagerMethod.DEFAULT_TARGET_GBPS + ", the SDK's).")
    Double targetGbps;

    @Option(names = "--endpoint", paramLabel = "URL",
            description = "An existing S3 endpoint instead of the embedded server; needs --bucket and --key.")
    URI endpoint;

    @Option(names = "--bucket", description = "Bucket of an existing object (with --key); the embedded server is not started.")
    String bucket;

    @Option(names = "--key", description = "Key of an existing object (with --bucket).")
    String key;

    @Option(names = "--region", defaultValue = "us-east-1",
            description = "Signing region for an external endpoint (default: ${DEFAULT-VALUE}).")
    String region;

    @Option(names = "--path-style", arity = "1", paramLabel = "true|false",
            description = "Path-style addressing for an external endpoint (default: true when --endpoint is set).")
    Boolean pathStyle;

    @Option(names = "--s3-profile", paramLabel = "NAME|SPEC",
            description = "Serve every method through a proxy that gives each request a first-byte latency and a rate"
                    + " as fleet's --s3-profile does, e.g. 'unlimited;latency=30ms' (S3's first-byte latency alone) or"
                    + " paper (default: none, the server as fast as it is).")
    String s3Profile;

    @Option(names = "--no-prime", negatable = false,
            description = "Do not write and delete a scratch file of the object's size before each download (see"
                    + " docs/bench.md: on a VM that reports free memory to its host, the first write to memory freed"
                    + " seconds ago costs a host fault per page, several times the copy itself).")
    boolean noPrime;

    @Option(names = "--no-fsync", negatable = false,
            description = "Stop the clock when the Transfer Manager's and GetObject's futures complete, without"
                    + " the fsync that otherwise makes them durable like ours (ours always fsyncs before it returns).")
    boolean noFsync;

    @Option(names = "--fresh-jvm", negatable = false,
            description = "Run ours and the Transfer Manager in a fresh node JVM for every download (warm-up rounds"
                    + " included), with the flags and class-data archive a fleet's nodes get: every trial is the first"
                    + " download of a new JVM. Their seconds are the download as the node timed it; the process's time"
                    + " and CPU are shown beside.")
    boolean freshJvm;

    @Option(names = "--node-jvm-option", paramLabel = "OPTION",
            description = "With --fresh-jvm: one more option for the node JVMs, after their flags and class-data"
                    + " archive (repeatable), e.g. -XX:StartFlightRecording=filename=/tmp/node-%%p.jfr or"
                    + " -Xlog:class+load:file=/tmp/node-%%p.log, to see where a first fetch's time goes.")
    List<String> nodeJvmOptions = new ArrayList<>();

    @Option(names = "--node-log-dir", paramLabel = "DIR",
            description = "With --fresh-jvm: keep each node JVM's stdout and stderr in DIR (as <file>.stdout and"
                    + " <file>.stderr) instead of deleting them.")
    Path nodeLogDir;

    @Mixin
    ClassDataOptions cds = new ClassDataOptions();

    @Option(names = "--work-dir", paramLabel = "DIR",
            description = "Where downloads are written (a new temporary directory inside it; default: java.io.tmpdir).")
    Path workDir;

    private boolean fsync;
    private double loadBefore;

    @Override
    public Integer call() throws Exception {
        validate();
        fsync = !noFsync;
        loadBefore = Machine.loadAverage();
        List<String> selected = methods == null || methods.isEmpty() ? ALL_METHODS.stream()
                .filter(m -> !m.equals(Aria2Method.NAME) || FleetTools.find("aria2c") != null).toList() : methods;
        Tuning tuning = new Tuning(connections, rangeSize, pieceSize, httpClient, targetGbps);
        Path dir = workDir != null ? Files.createTempDirectory(Files.createDirectories(workDir), "s3broadcast-bench-")
                : Files.createTempDirectory("s3broadcast-bench-");
        try (Testbed testbed = external()
                ? Testbed.external(Endpoint.external(endpoint, Region.of(region), pathStyle), bucket, key, dir)
                : Testbed.embedded(size, seed);
                FaultProxy proxy = profiled(testbed.endpoint())) {
            Endpoint served = proxy == null ? testbed.endpoint() : testbed.endpoint().via(proxy.endpoint());
            SingleReport report = run(testbed, served, selected, tuning, dir);
            PrintWriter out = spec.commandLine().getOut();
            printTable(out, report);
            out.println(Json.line(report));
            out.flush();
            boolean ok = report.methods().values().stream().allMatch(SingleReport.MethodReport::sha256Match);
            return ok ? 0 : 1;
        } finally {
            deleteTree(dir);
        }
    }

    /** The proxy every method is served through with {@code --s3-profile}; null without it. */
    private FaultProxy profiled(Endpoint server) throws IOException {
        if (s3Profile == null) {
            return null;
        }
        URI uri = server.uri();
        return FaultProxy.builder(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 80 : uri.getPort()))
                .profile(S3Profile.parse(s3Profile)).start();
    }

    private boolean external() {
        return bucket != null || key != null || endpoint != null;
    }

    private void validate() {
        if (trials < 1) {
            throw new ParameterException(spec.commandLine(), "--trials must be at least 1");
        }
        if (warmup < 0) {
            throw new ParameterException(spec.commandLine(), "--warmup must be 0 or more");
        }
        if (size < 0) {
            throw new ParameterException(spec.commandLine(), "--size must not be negative");
        }
        if (external() && (bucket == null || key == null)) {
            throw new ParameterException(spec.commandLine(),
                    "an external object needs both --bucket and --key (and --endpoint unless it is on AWS)");
        }
        if (s3Profile != null) {
            if (external() && (endpoint == null || !"http".equalsIgnoreCase(endpoint.getScheme()))) {
                throw new ParameterException(spec.commandLine(), "--s3-profile needs the embedded server or an http://"
                        + " --endpoint (its proxy speaks plain HTTP)");
            }
            try {
                S3Profile.parse(s3Profile);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--s3-profile: " + e.getMessage());
            }
        }
        if (connections != null && connections < 1) {
            throw new ParameterException(spec.commandLine(), "--connections must be at least 1");
        }
        if (httpClient != null && !List.of("netty", "crt").contains(httpClient.toLowerCase(Locale.ROOT))) {
            throw new ParameterException(spec.commandLine(), "--http-client must be netty or crt, was " + httpClient);
        }
        if (!freshJvm && (!nodeJvmOptions.isEmpty() || nodeLogDir != null)) {
            throw new ParameterException(spec.commandLine(), "--node-jvm-option and --node-log-dir are for --fresh-jvm");
        }
        if (methods != null) {
            for (String m : methods) {
                if (!ALL_METHODS.contains(m)) {
                    throw new ParameterException(spec.commandLine(),
                            "unknown method '" + m + "' in --methods: use " + String.join(", ", ALL_METHODS));
                }
            }
        }
    }

    private SingleReport run(Testbed testbed, Endpoint served, List<String> selected, Tuning tuning, Path dir)
            throws IOException, InterruptedException {
        Map<String, Results> results = new LinkedHashMap<>();
        List<DownloadMethod> ready = new ArrayList<>();
        try {
            for (String name : selected) {
                Results r = new Results(trials);
                results.put(name, r);
                try {
                    DownloadMethod m = create(name, testbed, served, tuning, dir);
                    r.settings.putAll(m.settings());
                    ready.add(m);
                } catch (RuntimeException e) {
                    LOG.error("{} cannot be set up: {}", name, describe(e));
                    r.errors.add("setup: " + describe(e));
                }
            }
            Durability.syncAll();
            for (int w = 0; w < warmup; w++) {
                for (DownloadMethod m : rotate(ready, w)) {
                    LOG.info("warm-up {} of {}: {}", w + 1, warmup, m.name());
                    timeOne(m, testbed, dir.resolve("warmup-" + m.name() + ".bin"), null, -1);
                }
            }
            List<List<String>> order = new ArrayList<>();
            for (int t = 0; t < trials; t++) {
                List<DownloadMethod> round = rotate(ready, t);
                order.add(round.stream().map(DownloadMethod::name).toList());
                for (DownloadMethod m : round) {
                    timeOne(m, testbed, dir.resolve(m.name() + "-trial" + (t + 1) + ".bin"), results.get(m.name()), t);
                }
            }
            Map<String, SingleReport.MethodReport> reports = new LinkedHashMap<>();
            results.forEach((name, r) -> reports.put(name, r.report()));
            SingleReport.MethodReport ours = reports.get(BroadcastMethod.NAME);
            SingleReport.MethodReport tm = reports.get(TransferManagerMethod.NAME);
            Double ratio = ratio(ours, tm);
            Double ratioAria2 = ratio(ours, reports.get(Aria2Method.NAME));
            return new SingleReport("single", testbed.size(), served.kind(), served.server(), served.describe(), s3Profile,
                    testbed.bucket(), testbed.key(), trials, warmup, fsync, testbed.sha256(), testbed.sha256Source(), order, reports, ratio, ratioAria2,
                    Machine.current(loadBefore));
        } finally {
            for (DownloadMethod m : ready) {
                try {
                    m.close();
                } catch (RuntimeException e) {
                    LOG.warn("closing {}: {}", m.name(), e.toString());
                }
            }
        }
    }

    private static Double ratio(SingleReport.MethodReport ours, SingleReport.MethodReport other) {
        return ours != null && other != null && ours.median() != null && other.median() != null && other.median() > 0
                ? round(ours.median() / other.median(), 3) : null;
    }

    /**
     * Times one download, checks it, deletes it; {@code into} null means a warm-up, not recorded. The clock stops
     * when the file is durable: methods that do not fsync themselves get an fsync of file and directory inside
     * the timed region, unless {@code --no-fsync}.
     */
    private void timeOne(DownloadMethod method, Testbed testbed, Path file, Results into, int trial) throws IOException {
        String label = into == null ? "warm-up" : "trial " + (trial + 1);
        Files.deleteIfExists(file);
        if (!noPrime) {
            PageCachePrimer.prime(file.resolveSibling("prime.bin"), testbed.size());
        }
        try {
            long cpuStarted = Machine.processCpuNanos();
            long started = System.nanoTime();
            long lastByte = method.download(testbed.bucket(), testbed.key(), file);
            if (fsync && !method.syncsToDisk()) {
                Durability.fsync(file);
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            long cpuNanos = Machine.processCpuNanos() - cpuStarted;
            Double cpuSeconds = cpuStarted < 0 ? null : cpuNanos / 1e9;
            Double toLastByte = (lastByte - started) / 1e9;
            Double processSeconds = null;
            Double buildSeconds = null;
            ChildProcessRun child = method.lastProcess();
            if (child != null) {
                // Its own process: its CPU, and its own timing of the fetch where it has one (a JVM's start-up is
                // not the fetch); the time to the last byte is not known.
                seconds = child.fetchSeconds() != null ? child.fetchSeconds() : seconds;
                cpuSeconds = child.cpuSeconds();
                processSeconds = child.processSeconds();
                buildSeconds = child.buildSeconds();
                toLastByte = child.fetchSeconds() != null ? null : toLastByte;
            }
            String sha = Sha256.of(file);
            boolean match = sha.equals(testbed.sha256());
            double rate = testbed.size() / 1e6 / seconds;
            LOG.info("{} {}: {} s, {} MB/s, last byte after {} s, process {} s, build {} s, sha256 {}", method.name(),
                    label, String.format(Locale.ROOT, "%.3f", seconds), String.format(Locale.ROOT, "%.1f", rate),
                    toLastByte == null ? "-" : String.format(Locale.ROOT, "%.3f", toLastByte),
                    processSeconds == null ? "-" : String.format(Locale.ROOT, "%.3f", processSeconds),
                    buildSeconds == null ? "-" : String.format(Locale.ROOT, "%.3f", buildSeconds),
                    match ? "ok" : "MISMATCH " + sha);
            if (into != null) {
                into.record(trial, seconds, toLastByte, cpuSeconds, processSeconds, buildSeconds, rate, match,
                        match ? null : "sha256 " + sha + " != " + testbed.sha256());
            }
        } catch (Exception e) {
            LOG.error("{} {} failed: {}", method.name(), label, describe(e), e);
            if (into != null) {
                into.record(trial, null, null, null, null, null, null, false, describe(e));
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** {@code name}'s method, reading from {@code endpoint} (the test bed's, or the proxy in front of it). */
    private DownloadMethod create(String name, Testbed testbed, Endpoint endpoint, Tuning tuning, Path dir)
            throws IOException, InterruptedException {
        return switch (name) {
            case BroadcastMethod.NAME -> freshJvm ? new NodeJvmMethod(NodeJvmMethod.Kind.OURS, endpoint, tuning,
                    archiveFlags(testbed, dir), nodeJvmOptions, nodeLogDir, PROCESS_TIMEOUT)
                    : new BroadcastMethod(endpoint, tuning, dir);
            case TransferManagerMethod.NAME -> freshJvm ? new NodeJvmMethod(NodeJvmMethod.Kind.TRANSFER_MANAGER, endpoint,
                    tuning, archiveFlags(testbed, dir), nodeJvmOptions, nodeLogDir, PROCESS_TIMEOUT)
                    : new TransferManagerMethod(endpoint, tuning);
            case GetObjectMethod.NAME -> new GetObjectMethod(endpoint);
            case Aria2Method.NAME -> new Aria2Method(endpoint, tuning.connections() != null ? tuning.connections() : 16,
                    PROCESS_TIMEOUT);
            default -> throw new IllegalArgumentException("unknown method " + name);
        };
    }

    /** The class-data archive's flags for the node JVMs of {@code --fresh-jvm}, made first if needed. */
    private List<String> archiveFlags(Testbed testbed, Path dir) throws IOException, InterruptedException {
        if (cds.cacheDir() == null) {
            return List.of();
        }
        Path training = dir.resolve("cds-training");
        try {
            return NodeJvm.archive(cds.cacheDir(), env -> NodeJvm.environment(testbed.endpoint(), env))
                    .flags(NodeJvm.training(testbed, training));
        } finally {
            FleetFiles.deleteTree(training);
        }
    }

    /** The methods starting at position {@code by}, wrapping: each method leads one trial in turn. */
    static <T> List<T> rotate(List<T> list, int by) {
        if (list.isEmpty()) {
            return list;
        }
        List<T> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            out.add(list.get((i + by) % list.size()));
        }
        return out;
    }

    private static void printTable(PrintWriter out, SingleReport report) {
        out.printf(Locale.ROOT, "%nsingle: %s (sha256 from %s) on %s %s, %d trial(s) after %d warm-up round(s)%n",
                ByteSize.format(report.size()), report.sha256Source(), report.server(), report.endpoint(),
                report.trials(), report.warmup());
        out.printf(Locale.ROOT, "seconds: until the file is durable and verified where the method verifies (%s);%n"
                + "last byte: until the last byte was in the file, before verification, fsync and rename;%n"
                + "cpu s: CPU time of this whole process (clients and the embedded server) during the trial, or of the%n"
                + "  method's own process (aria2; ours and transferManager with --fresh-jvm: seconds are then the%n"
                + "  download as the node timed it, process s from its start to its exit, build s its client's build%n"
                + "  (Broadcast.builder().build(), or the CRT-based S3 client and Transfer Manager), before the download%n"
                + "  and not in its seconds: a first download in an application pays it too, once per client)%n%n",
                report.fsync() ? "the bench fsyncs for the methods that do not" : "--no-fsync: only ours fsyncs");
        out.printf(Locale.ROOT, "%-16s %5s %9s %9s %11s %9s %9s %9s  %s%n", "method", "trial", "seconds", "MB/s",
                "last byte", "cpu s", "process s", "build s", "sha256 ok");
        report.methods().forEach((name, r) -> {
            for (int t = 0; t < report.trials(); t++) {
                Double s = r.seconds().get(t);
                Double rate = r.rates().get(t);
                Double pre = r.secondsToLastByte().get(t);
                Double cpu = r.cpuSeconds().get(t);
                Double process = r.processSeconds().get(t);
                Double build = r.buildSeconds().get(t);
                out.printf(Locale.ROOT, "%-16s %5d %9s %9s %11s %9s %9s %9s  %s%n", name, t + 1,
                        s == null ? "-" : String.format(Locale.ROOT, "%.3f", s),
                        rate == null ? "-" : String.format(Locale.ROOT, "%.1f", rate),
                        pre == null ? "-" : String.format(Locale.ROOT, "%.3f", pre),
                        cpu == null ? "-" : String.format(Locale.ROOT, "%.2f", cpu),
                        process == null ? "-" : String.format(Locale.ROOT, "%.2f", process),
                        build == null ? "-" : String.format(Locale.ROOT, "%.3f", build),
                        s == null ? "failed" : Boolean.TRUE.equals(r.sha256Matches().get(t)) ? "yes" : "NO");
            }
        });
        out.printf(Locale.ROOT, "%n%-16s %11s  %s%n", "method", "median MB/s", "sha256 ok (all trials)");
        report.methods().forEach((name, r) -> out.printf(Locale.ROOT, "%-16s %11s  %s%n", name,
                r.median() == null ? "-" : String.format(Locale.ROOT, "%.1f", r.median()), r.sha256Match() ? "yes" : "NO"));
        if (report.ratio() != null) {
            out.printf(Locale.ROOT, "%nours / transferManager = %.3f (median MB/s)%n", report.ratio());
        }
        if (report.ratioAria2() != null) {
            out.printf(Locale.ROOT, "ours / aria2 = %.3f (median MB/s)%n", report.ratioAria2());
        }
        report.methods().forEach((name, r) -> r.errors().forEach(e -> out.printf("%s: %s%n", name, e)));
        Machine m = report.machine();
        out.printf(Locale.ROOT, "%d cores, load average %.2f before, %.2f after%s%n", m.cores(), m.loadAverageBefore(),
                m.loadAverageAfter(), Math.max(m.loadAverageBefore(), m.loadAverageAfter()) > m.cores()
                        ? " (other work shared the machine: rates are noisy)" : "");
    }

    static String describe(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        String message = t.getMessage();
        return t.getClass().getSimpleName() + (message == null ? "" : ": " + message.lines().findFirst().orElse(""));
    }

    static double round(double value, int places) {
        double scale = Math.pow(10, places);
        return Math.round(value * scale) / scale;
    }

    private static void deleteTree(Path dir) {
        try {
            FleetFiles.deleteTree(dir);
        } catch (IOException e) {
            LOG.warn("cannot delete {}: {}", dir, e.toString());
        }
    }

    /** What one method did over the trials. */
    private static final class Results {
        final Map<String, Object> settings = new LinkedHashMap<>();
        final Double[] seconds;
        final Double[] toLastByte;
        final Double[] cpuSeconds;
        final Double[] processSeconds;
        final Double[] buildSeconds;
        final Double[] rates;
        final Boolean[] matches;
        final List<String> errors = new ArrayList<>();
        boolean allMatch = true;

        Results(int trials) {
            seconds = new Double[trials];
            toLastByte = new Double[trials];
            cpuSeconds = new Double[trials];
            processSeconds = new Double[trials];
            buildSeconds = new Double[trials];
            rates = new Double[trials];
            matches = new Boolean[trials];
        }

        void record(int trial, Double s, Double sToLastByte, Double cpu, Double process, Double build, Double rate,
                boolean match, String error) {
            buildSeconds[trial] = build == null ? null : round(build, 3);
            cpuSeconds[trial] = cpu == null ? null : round(cpu, 3);
            processSeconds[trial] = process == null ? null : round(process, 3);
            seconds[trial] = s == null ? null : round(s, 3);
            toLastByte[trial] = sToLastByte == null ? null : round(sToLastByte, 3);
            rates[trial] = rate == null ? null : round(rate, 2);
            matches[trial] = s == null ? null : match;
            allMatch &= match;
            if (error != null) {
                errors.add("trial " + (trial + 1) + ": " + error);
            }
        }

        SingleReport.MethodReport report() {
            double[] ok = Arrays.stream(rates).filter(r -> r != null).mapToDouble(Double::doubleValue).sorted().toArray();
            Double median = ok.length == 0 ? null
                    : round(ok.length % 2 == 1 ? ok[ok.length / 2] : (ok[ok.length / 2 - 1] + ok[ok.length / 2]) / 2, 2);
            boolean match = allMatch && errors.isEmpty() && ok.length == seconds.length;
            return new SingleReport.MethodReport(settings, Arrays.asList(seconds), Arrays.asList(toLastByte),
                    Arrays.asList(cpuSeconds), Arrays.asList(processSeconds), Arrays.asList(buildSeconds),
                    Arrays.asList(rates), median,
                    Arrays.asList(matches), match, errors);
        }
    }
}
