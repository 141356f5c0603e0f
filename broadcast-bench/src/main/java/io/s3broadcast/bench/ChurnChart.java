package io.s3broadcast.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What {@code fleet --join/--leave} prints and draws: per trial, which nodes joined or left and whether every node
 * that stayed has the object byte-exact, S3 bytes / S, and the aggregate throughput around the first join or leave
 * (before, the dip, the time to recover) around the leave (or the join when nobody leaves), like paper 003's Fig. 9; the chart is the throughput over time.
 */
final class ChurnChart {

    /** Throughput counts as recovered once a bucket reaches this share of the mean before the event. */
    static final double RECOVERED = 0.9;
    /** The mean before the event is taken over this many seconds before it. */
    static final double BEFORE_SECONDS = 2;

    private ChurnChart() {
    }

    /**
     * Throughput around an event at {@code eventSeconds}: the mean over {@link #BEFORE_SECONDS} before it, the lowest
     * bucket within 3 s after it, and the seconds from the event to the first bucket after that low point that is back
     * at {@link #RECOVERED} of the mean before (null when none is).
     */
    record Dip(double beforeMBps, double dipMBps, Double recoverySeconds) {

        static Dip of(List<Double> series, double eventSeconds) {
            double bucket = Churn.BUCKET_MILLIS / 1e3;
            int event = (int) Math.floor(eventSeconds / bucket);
            int from = Math.max(0, event - (int) Math.round(BEFORE_SECONDS / bucket));
            double before = series.subList(Math.min(from, series.size()), Math.min(event, series.size())).stream()
                    .mapToDouble(d -> d).average().orElse(0);
            int low = -1;
            for (int b = event; b < Math.min(series.size(), event + (int) Math.round(3 / bucket)); b++) {
                if (low < 0 || series.get(b) < series.get(low)) {
                    low = b;
                }
            }
            if (low < 0) {
                return new Dip(before, 0, null);
            }
            Double recovery = null;
            for (int b = low; b < series.size(); b++) {
                if (series.get(b) >= RECOVERED * before) {
                    recovery = SingleCommand.round((b + 1) * bucket - eventSeconds, 2);
                    break;
                }
            }
            return new Dip(SingleCommand.round(before, 2), series.get(low), recovery);
        }
    }

    /** The seconds of the leave, or of the join when nobody leaves: the dip is measured around it; null if neither came. */
    static Double eventSeconds(FleetTrial t) {
        return t.leaveSeconds() != null ? t.leaveSeconds() : t.joinSeconds();
    }

    static void print(PrintWriter out, FleetCommand.FleetSpec fleet, List<FleetReport> reports) {
        Churn churn = fleet.churn();
        out.printf(Locale.ROOT, "%njoin and leave: %s (before: mean over %.0f s before the %s; dip: lowest 250 ms within"
                + " 3 s after; recovery: from the %s to the first bucket after the dip at %.0f%% of before)%n",
                churn.describe(), BEFORE_SECONDS, churn.leave() > 0 ? "leave" : "join",
                churn.leave() > 0 ? "leave" : "join", RECOVERED * 100);
        out.printf(Locale.ROOT, "%-10s %5s %6s %7s %8s %8s %7s %7s %9s %9s %9s %10s%n", "contender", "trial", "stayed",
                "exact", "S3/S", "nodes/S", "join s", "leave s", "before", "dip", "recovery", "last done");
        for (FleetReport r : reports) {
            for (FleetTrial t : r.runs()) {
                List<FleetNode> staying = t.nodes().stream().filter(n -> !n.leaver()).toList();
                long exact = staying.stream().filter(FleetNode::sha256Match).count();
                Dip d = t.throughput() == null || eventSeconds(t) == null ? null : Dip.of(t.throughput(), eventSeconds(t));
                out.printf(Locale.ROOT, "%-10s %5d %6d %7s %8.3f %8.3f %7s %7s %9s %9s %9s %10s%n", r.contender(), t.trial(),
                        staying.size(), exact + "/" + staying.size(), t.s3Reads(), reportedS3(t) / (double) r.size(),
                        t.joinSeconds() == null ? "-" : String.format(Locale.ROOT, "%.1f", t.joinSeconds()),
                        t.leaveSeconds() == null ? "-" : String.format(Locale.ROOT, "%.1f", t.leaveSeconds()),
                        d == null ? "-" : String.format(Locale.ROOT, "%.1f MB/s", d.beforeMBps()),
                        d == null ? "-" : String.format(Locale.ROOT, "%.1f MB/s", d.dipMBps()),
                        d == null || d.recoverySeconds() == null ? "-"
                                : String.format(Locale.ROOT, "%.2f s", d.recoverySeconds()),
                        t.slowest() == null ? "-" : String.format(Locale.ROOT, "%.2f s", t.slowest()));
                for (FleetNode n : t.nodes()) {
                    if (n.role() != null) {
                        out.printf(Locale.ROOT, "  node %d (%s): %s, S3 %d bytes (proxy), %s from peers%n", n.node(),
                                n.role(), n.leaver() ? "left" : n.sha256Match() ? "byte-exact at " + n.seconds() + " s"
                                        : "NOT byte-exact: " + n.error(), n.bytesFromS3(),
                                n.bytesFromPeers() == null ? "-" : n.bytesFromPeers() + " bytes");
                    }
                }
            }
        }
        out.flush();
    }

    /** Each bucket as the mean of the {@code width} buckets ending with it (pieces land in steps of a piece). */
    static List<Double> smoothed(List<Double> series, int width) {
        List<Double> out = new ArrayList<>(series.size());
        double sum = 0;
        for (int i = 0; i < series.size(); i++) {
            sum += series.get(i);
            if (i >= width) {
                sum -= series.get(i - width);
            }
            out.add(SingleCommand.round(sum / Math.min(i + 1, width), 2));
        }
        return out;
    }

    /**
     * S3 bytes the nodes say they read (object reads only; the proxy's count also has HEADs and, with joiners, the
     * S3-prefix registry's requests); a node that reported none (a leaver in-process) counts its proxy bytes.
     */
    static long reportedS3(FleetTrial t) {
        return t.nodes().stream().mapToLong(n -> n.bytesFromS3Reported() != null ? n.bytesFromS3Reported()
                : n.bytesFromS3()).sum();
    }

    /** Draws each contender's first trial's aggregate throughput over time to {@code png}, its CSV beside it. */
    static void write(Path png, FleetCommand.FleetSpec fleet, List<FleetReport> reports) throws IOException {
        Churn churn = fleet.churn();
        double bucket = Churn.BUCKET_MILLIS / 1e3;
        XYChart chart = new XYChartBuilder().width(900).height(540)
                .title(String.format(Locale.ROOT, "Aggregate throughput, %d nodes, %s (%s): %s", fleet.nodes(),
                        ByteSize.format(fleet.size()), fleet.level(), churn.describe()))
                .xAxisTitle("time from the start (s)").yAxisTitle("bytes received by all nodes (MB/s, per 250 ms)")
                .build();
        List<String> csv = new ArrayList<>(List.of("contender,trial,seconds,aggregateMBps"));
        double top = 0;
        for (FleetReport r : reports) {
            FleetTrial t = r.runs().stream().filter(x -> x.throughput() != null).findFirst().orElse(null);
            if (t == null) {
                continue;
            }
            List<Double> x = new ArrayList<>();
            for (int b = 0; b < t.throughput().size(); b++) {
                x.add(SingleCommand.round((b + 1) * bucket, 3));
                csv.add(String.format(Locale.ROOT, "%s,%d,%.3f,%.2f", r.contender(), t.trial(), (b + 1) * bucket,
                        t.throughput().get(b)));
            }
            top = Math.max(top, t.throughput().stream().filter(Objects::nonNull).mapToDouble(d -> d).max().orElse(0));
            if (!x.isEmpty()) {
                chart.addSeries(r.contender() + ", trial " + t.trial() + " (250 ms)", x, t.throughput())
                        .setMarker(SeriesMarkers.NONE);
                chart.addSeries(r.contender() + ", trial " + t.trial() + " (1 s mean)", x, smoothed(t.throughput(), 4))
                        .setMarker(SeriesMarkers.NONE);
            }
        }
        double y = Math.max(1, top);
        FleetTrial first = reports.stream().flatMap(r -> r.runs().stream()).filter(x -> x.throughput() != null)
                .findFirst().orElse(null);
        if (first != null && first.joinSeconds() != null) {
            double at = first.joinSeconds();
            chart.addSeries(churn.join() + " join", List.of(at, at), List.of(0.0, y)).setMarker(SeriesMarkers.NONE);
        }
        if (first != null && first.leaveSeconds() != null) {
            double at = first.leaveSeconds();
            chart.addSeries(churn.leave() + " leave", List.of(at, at), List.of(0.0, y)).setMarker(SeriesMarkers.NONE);
        }
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        String name = png.toString();
        String base = name.endsWith(".png") ? name.substring(0, name.length() - 4) : name;
        BitmapEncoder.saveBitmap(chart, base, BitmapEncoder.BitmapFormat.PNG);
        Files.write(Path.of(base + ".csv"), csv);
    }
}
