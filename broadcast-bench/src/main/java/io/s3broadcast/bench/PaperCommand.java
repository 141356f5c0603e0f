package io.s3broadcast.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code paper}: paper 000's experiments on the emulated fleet, as CSV, JSON and PNG charts. */
@Command(name = "paper",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Reproduce paper 000's figures on the emulated fleet (fleet's levels and S3 profile).",
        description = {
            "%nFig. 2, 9, 10: per-trial fastest, mean and slowest completion for the flat tree, non-steal and steal at"
                    + " --nodes (default 8) over --trials (default 10). Fig. 11: aggregate throughput (sum over nodes of"
                    + " S / time) against N in --node-counts for every strategy and the aria2 baselines. Fig. 12: phase-1"
                    + " and phase-2 throughput of steal and non-steal against N. Fig. 13: the share of phase 1 and phase 2"
                    + " in steal's completion time against N. Each figure is a PNG, a CSV and the fleet's JSON lines in"
                    + " --out; every chart says whether its runs were CPU-bound.",
        },
        footerHeading = "%nExamples:%n",
        footer = {
            "  java -jar broadcast-bench.jar paper --figure 10 --level netns --size 64MiB --trials 10",
            "  java -jar broadcast-bench.jar paper --all --level inprocess --size 32MiB --trials 3 --node-counts 4,8,16",
        })
final class PaperCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--figure", split = ",", paramLabel = "N", description = "Figures: 2, 9, 10, 11, 12, 13.")
    List<Integer> figures;

    @Option(names = "--all", description = "Every figure.")
    boolean all;

    @Option(names = "--level", paramLabel = "netns|inprocess", description = "As for fleet (default: fleet's).")
    String level;

    @Option(names = "--nodes", defaultValue = "8", description = "N for Fig. 2, 9, 10 (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--node-counts", split = ",", defaultValue = "4,8,16,32",
            description = "N for Fig. 11-13 (default: ${DEFAULT-VALUE}).")
    List<Integer> nodeCounts;

    @Option(names = "--trials", defaultValue = "10", description = "Trials for Fig. 2, 9, 10 (default: ${DEFAULT-VALUE});"
            + " Fig. 11-13 use --scaling-trials.")
    int trials;

    @Option(names = "--scaling-trials", defaultValue = "1", description = "Trials per N for Fig. 11-13 (default: ${DEFAULT-VALUE}).")
    int scalingTrials;

    @Option(names = "--size", defaultValue = "64MiB", description = "Object size (the paper: 1 GB; default: ${DEFAULT-VALUE}).")
    String size;

    @Option(names = "--link", defaultValue = "10MB", description = "Every node's link (default: ${DEFAULT-VALUE}).")
    String link;

    @Option(names = "--s3-profile", defaultValue = "paper", description = "S3 profile (default: ${DEFAULT-VALUE}).")
    String s3Profile;

    @Option(names = "--out", defaultValue = "paper-figures", description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--fleet-option", paramLabel = "ARG", description = "Passed on to fleet, e.g. --fleet-option=--range-size=8MiB.")
    List<String> fleetOptions = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        List<Integer> figs = all ? List.of(2, 9, 10, 11, 12, 13) : figures;
        if (figs == null || figs.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "name --figure 2|9|10|11|12|13 or --all");
        }
        for (int f : figs) {
            if (!List.of(2, 9, 10, 11, 12, 13).contains(f)) {
                throw new ParameterException(spec.commandLine(), "there is no figure " + f + ": 2, 9, 10, 11, 12 or 13");
            }
        }
        Files.createDirectories(out);
        PrintWriter stdout = spec.commandLine().getOut();
        boolean ok = true;
        Map<Integer, List<FleetReport>> scaling = new LinkedHashMap<>();
        for (int f : figs) {
            switch (f) {
                case 2, 9, 10 -> {
                    String strategy = f == 2 ? "flat" : f == 9 ? "non-steal" : "steal";
                    List<FleetReport> r = fleet(stdout, nodes, trials, strategy, "none");
                    ok &= r.stream().allMatch(FleetReport::sha256Match);
                    perTrialFigure(f, r.get(0));
                }
                default -> {
                    if (scaling.isEmpty()) {
                        for (int n : nodeCounts) {
                            String baselines = effectiveLevel().equals("netns") ? "aria2-swarm,aria2-flat" : "aria2-flat";
                            List<FleetReport> r = fleet(stdout, n, scalingTrials, "flat,non-steal,steal,overlap", baselines);
                            ok &= r.stream().allMatch(FleetReport::sha256Match);
                            scaling.put(n, r);
                        }
                    }
                    if (f == 11) {
                        throughputFigure(scaling);
                    } else if (f == 12) {
                        phaseThroughputFigure(scaling);
                    } else {
                        phaseShareFigure(scaling);
                    }
                }
            }
            stdout.printf(Locale.ROOT, "figure %d written to %s%n", f, out.resolve("fig" + f + ".png"));
            stdout.flush();
        }
        return ok ? 0 : 1;
    }

    private String effectiveLevel() {
        return level != null ? level : NetnsFleet.available() == null ? "netns" : "inprocess";
    }

    private List<FleetReport> fleet(PrintWriter stdout, int n, int t, String strategies, String baselines)
            throws Exception {
        FleetCommand fleet = new FleetCommand();
        CommandLine cl = new CommandLine(fleet);
        List<String> args = new ArrayList<>(List.of("--level", effectiveLevel(), "--nodes", String.valueOf(n), "--trials",
                String.valueOf(t), "--size", size, "--link", link, "--s3-profile", s3Profile, "--strategies", strategies,
                "--baselines", baselines));
        args.addAll(fleetOptions);
        cl.parseArgs(args.toArray(String[]::new));
        Path dir = Files.createTempDirectory("s3bf-paper-");
        try {
            List<FleetReport> reports = fleet.execute(fleet.spec(), Machine.loadAverage(), stdout, dir);
            List<String> lines = reports.stream().map(Json::line).toList();
            Files.write(out.resolve("fleet-n" + n + "-" + strategies.replace(',', '_') + ".json"), lines);
            Files.write(out.resolve("fleet-n" + n + "-" + strategies.replace(',', '_') + ".csv"), FleetTables.csv(reports));
            return reports;
        } finally {
            FleetFiles.deleteTree(dir);
        }
    }

    private static String cpuNote(List<FleetReport> reports) {
        boolean bound = reports.stream().anyMatch(FleetReport::cpuBound);
        double util = reports.stream().mapToDouble(FleetReport::cpuUtilisation).max().orElse(0);
        // CPU-bound as the fleet reports it (its processes' share of the cores, or how long the machine was saturated:
        // FleetReport.isCpuBound). The load average is shown, not judged: a minute's average also counts the fleet's
        // own JVMs of the run before.
        double load = reports.stream().mapToDouble(r -> r.machine().loadAverageBefore()).max().orElse(-1);
        int cores = reports.isEmpty() ? 0 : reports.get(0).machine().cores();
        return String.format(Locale.ROOT,
                "CPU-bound: %s (fleet CPU up to %.0f%% of %d cores; load average before a fleet up to %.1f)",
                bound ? "YES" : "no", 100 * util, cores, load);
    }

    /** Fig. 2, 9, 10: fastest, mean, slowest per trial. */
    private void perTrialFigure(int f, FleetReport r) throws IOException {
        List<Double> x = new ArrayList<>();
        List<Double> fastest = new ArrayList<>();
        List<Double> mean = new ArrayList<>();
        List<Double> slowest = new ArrayList<>();
        List<String> csv = new ArrayList<>(List.of("trial,fastest,mean,slowest,tStar"));
        for (FleetTrial t : r.runs()) {
            x.add((double) t.trial());
            fastest.add(orNaN(t.fastest()));
            mean.add(orNaN(t.mean()));
            slowest.add(orNaN(t.slowest()));
            csv.add(t.trial() + "," + t.fastest() + "," + t.mean() + "," + t.slowest() + "," + r.tStar().seconds());
        }
        XYChart chart = new XYChartBuilder().width(900).height(540)
                .title(String.format(Locale.ROOT, "Fig. %d: %s, %d nodes, %s (%s); %s", f, r.contender(), r.nodes(),
                        ByteSize.format(r.size()), r.level(), cpuNote(List.of(r))))
                .xAxisTitle("trial").yAxisTitle("completion time (s)").build();
        chart.addSeries("fastest", x, fastest).setMarker(SeriesMarkers.CIRCLE);
        chart.addSeries("mean", x, mean).setMarker(SeriesMarkers.DIAMOND);
        chart.addSeries("slowest", x, slowest).setMarker(SeriesMarkers.SQUARE);
        chart.addSeries("T*", x, x.stream().map(v -> r.tStar().seconds()).toList()).setMarker(SeriesMarkers.NONE);
        write(f, chart, csv);
    }

    /** Fig. 11: aggregate throughput, sum over nodes of S / t_i, MB/s, against N. */
    private void throughputFigure(Map<Integer, List<FleetReport>> scaling) throws IOException {
        Map<String, List<Double>> series = new LinkedHashMap<>();
        List<String> csv = new ArrayList<>(List.of("nodes,contender,aggregateMBps"));
        for (Map.Entry<Integer, List<FleetReport>> e : scaling.entrySet()) {
            for (FleetReport r : e.getValue()) {
                double sum = 0;
                int count = 0;
                for (FleetTrial t : r.runs()) {
                    sum += t.nodes().stream().map(FleetNode::seconds).filter(Objects::nonNull)
                            .mapToDouble(s -> r.size() / 1e6 / s).sum();
                    count++;
                }
                double v = count == 0 ? Double.NaN : sum / count;
                series.computeIfAbsent(r.contender(), k -> new ArrayList<>()).add(v);
                csv.add(e.getKey() + "," + r.contender() + "," + String.format(Locale.ROOT, "%.3f", v));
            }
        }
        List<Double> x = scaling.keySet().stream().map(Integer::doubleValue).toList();
        XYChart chart = new XYChartBuilder().width(900).height(540)
                .title("Fig. 11: aggregate throughput vs N; " + cpuNote(scaling.values().stream().flatMap(List::stream).toList()))
                .xAxisTitle("nodes").yAxisTitle("sum of node throughputs (MB/s)").build();
        series.forEach((name, ys) -> chart.addSeries(name, x, ys).setMarker(SeriesMarkers.CIRCLE));
        write(11, chart, csv);
    }

    /** Fig. 12: mean phase-1 and phase-2 throughput per node (MB/s) of non-steal and steal against N. */
    private void phaseThroughputFigure(Map<Integer, List<FleetReport>> scaling) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(900).height(540)
                .title("Fig. 12: phase throughput per node; " + cpuNote(scaling.values().stream().flatMap(List::stream).toList()))
                .xAxisTitle("nodes").yAxisTitle("MB/s").build();
        List<String> csv = new ArrayList<>(List.of("nodes,contender,phase1MBps,phase2MBps"));
        List<String> xs = scaling.keySet().stream().map(String::valueOf).toList();
        for (String c : List.of("non-steal", "steal")) {
            List<Double> p1 = new ArrayList<>();
            List<Double> p2 = new ArrayList<>();
            for (Map.Entry<Integer, List<FleetReport>> e : scaling.entrySet()) {
                FleetReport r = e.getValue().stream().filter(x -> x.contender().equals(c)).findFirst().orElseThrow();
                double[] rates = phaseRates(r);
                p1.add(rates[0]);
                p2.add(rates[1]);
                csv.add(String.format(Locale.ROOT, "%d,%s,%.3f,%.3f", e.getKey(), c, rates[0], rates[1]));
            }
            chart.addSeries(c + " phase 1", xs, p1);
            chart.addSeries(c + " phase 2", xs, p2);
        }
        write(12, chart, csv);
    }

    /** Per node: own S3 bytes / phase-1 time, peer bytes / phase-2 time; means over nodes and trials. */
    static double[] phaseRates(FleetReport r) {
        double p1 = 0;
        double p2 = 0;
        int n1 = 0;
        int n2 = 0;
        for (FleetTrial t : r.runs()) {
            for (FleetNode n : t.nodes()) {
                if (n.phase1EndSeconds() == null || n.seconds() == null) {
                    continue;
                }
                double start = 0;
                double ph1 = n.phase1EndSeconds() - start;
                double ph2 = n.phase2EndSeconds() - n.phase1EndSeconds();
                if (ph1 > 0 && n.bytesFromS3() > 0) {
                    p1 += n.bytesFromS3() / 1e6 / ph1;
                    n1++;
                }
                if (ph2 > 0 && n.bytesFromPeers() != null && n.bytesFromPeers() > 0) {
                    p2 += n.bytesFromPeers() / 1e6 / ph2;
                    n2++;
                }
            }
        }
        return new double[] {n1 == 0 ? 0 : p1 / n1, n2 == 0 ? 0 : p2 / n2};
    }

    /** Fig. 13: phase 1 and phase 2 as shares of steal's completion time, against N. */
    private void phaseShareFigure(Map<Integer, List<FleetReport>> scaling) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(900).height(540)
                .title("Fig. 13: steal, phase shares of completion time; "
                        + cpuNote(scaling.values().stream().flatMap(List::stream).toList()))
                .xAxisTitle("nodes").yAxisTitle("share of completion time").build();
        chart.getStyler().setStacked(true);
        List<String> xs = scaling.keySet().stream().map(String::valueOf).toList();
        List<Double> s1 = new ArrayList<>();
        List<Double> s2 = new ArrayList<>();
        List<String> csv = new ArrayList<>(List.of("nodes,phase1Share,phase2Share"));
        for (Map.Entry<Integer, List<FleetReport>> e : scaling.entrySet()) {
            FleetReport r = e.getValue().stream().filter(x -> x.contender().equals("steal")).findFirst().orElseThrow();
            double a = 0;
            double b = 0;
            for (FleetTrial t : r.runs()) {
                for (FleetNode n : t.nodes()) {
                    if (n.seconds() != null && n.phase1EndSeconds() != null && n.seconds() > 0) {
                        a += n.phase1EndSeconds() / n.seconds();
                        b += (n.seconds() - n.phase1EndSeconds()) / n.seconds();
                    }
                }
            }
            double total = a + b;
            s1.add(total == 0 ? 0 : a / total);
            s2.add(total == 0 ? 0 : b / total);
            csv.add(String.format(Locale.ROOT, "%d,%.3f,%.3f", e.getKey(), s1.get(s1.size() - 1), s2.get(s2.size() - 1)));
        }
        chart.addSeries("phase 1", xs, s1);
        chart.addSeries("phase 2 (and commit)", xs, s2);
        write(13, chart, csv);
    }

    private void write(int f, org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, List<String> csv) throws IOException {
        BitmapEncoder.saveBitmap(chart, out.resolve("fig" + f).toString(), BitmapEncoder.BitmapFormat.PNG);
        Files.write(out.resolve("fig" + f + ".csv"), csv);
    }

    private static double orNaN(Double v) {
        return v == null ? Double.NaN : v;
    }
}
