package io.s3broadcast.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The human-readable tables and the CSV of {@code fleet}. */
final class FleetTables {

    private FleetTables() {
    }

    static void printNodes(PrintWriter out, String title, FleetTrial trial, FluidBound tStar) {
        out.printf(Locale.ROOT, "%n%s%n", title);
        out.printf(Locale.ROOT, "  %-4s %-10s %8s %8s %8s %8s %9s %9s %6s %6s %7s %8s  %s%n", "node", "link", "done s",
                "exit s", "ph1 end", "ph2 end", "S3 MiB", "peer MiB", "stolen", "hedges", "CPU s", "RSS MiB", "sha256");
        for (FleetNode n : trial.nodes()) {
            if (n.leaver()) {
                out.printf(Locale.ROOT, "  %-4d %-10s LEFT (--leave) after %.1f MiB from S3 (proxy)%n", n.node(), n.link(),
                        n.bytesFromS3() / (double) (1 << 20));
                continue;
            }
            if (n.error() != null && n.seconds() == null) {
                out.printf(Locale.ROOT, "  %-4d %-10s FAILED: %s%n", n.node(), n.link(), n.error());
                continue;
            }
            out.printf(Locale.ROOT, "  %-4d %-10s %8s %8s %8s %8s %9.1f %9s %6s %6s %7s %8s  %s%n", n.node(), n.link(),
                    num(n.seconds()), num(n.exitSeconds()), num(n.phase1EndSeconds()), num(n.phase2EndSeconds()),
                    n.bytesFromS3() / 1048576.0, n.bytesFromPeers() == null ? "-" : String.format(Locale.ROOT, "%.1f",
                            n.bytesFromPeers() / 1048576.0),
                    n.piecesStolen() == null ? "-" : n.piecesStolen().toString(),
                    n.hedges() == null ? "-" : n.hedges().toString(), num(n.cpuSeconds()),
                    n.peakRssBytes() == null ? "-" : String.valueOf(n.peakRssBytes() >> 20),
                    n.sha256Match() ? "ok" : "MISMATCH" + (n.error() != null ? " (" + n.error() + ")" : ""));
        }
        out.printf(Locale.ROOT, "  slowest %s s = %s T*, mean %s s; S3 bytes / S %.2f; fleet CPU %.1f s (%.0f%% of the"
                        + " cores%s)%n", num(trial.slowest()), num(tStar.ratio(trial.slowest())), num(trial.mean()),
                trial.s3Reads(), trial.cpuSeconds(), 100 * trial.cpuUtilisation(), saturation(trial));
        printLinkUse(out, trial);
        printAfterLastPiece(out, trial);
    }

    /** Seconds of link use printed one by one; the rest as their mean. */
    static final int LINK_USE_SECONDS = 6;

    /**
     * "  download links used, by second from the start: 3% 57% 78% 92% 97% 99%, then 97% on average to the slowest
     * node's end", and the same line for the upload links, where known (netns).
     */
    static void printLinkUse(PrintWriter out, FleetTrial trial) {
        printLinkUse(out, "download", trial.linkUse());
        printLinkUse(out, "upload", trial.uploadLinkUse());
    }

    private static void printLinkUse(PrintWriter out, String direction, List<Double> use) {
        if (use == null || use.isEmpty()) {
            return;
        }
        int head = Math.min(LINK_USE_SECONDS, use.size());
        StringBuilder line = new StringBuilder("  " + direction + " links used (all nodes, of their capacity), by second"
                + " from the start:");
        for (double u : use.subList(0, head)) {
            line.append(String.format(Locale.ROOT, " %.0f%%", 100 * u));
        }
        if (use.size() > head) {
            double rest = use.subList(head, use.size()).stream().mapToDouble(d -> d).average().orElseThrow();
            line.append(String.format(Locale.ROOT, ", then %.0f%% on average to the slowest node's end", 100 * rest));
        }
        out.println(line);
    }

    /** "; saturated 6.1 s of the slowest node's 18.6 s", or "" where it is not known. */
    private static String saturation(FleetTrial trial) {
        if (trial.cpuSaturatedSeconds() == null || trial.slowest() == null) {
            return "";
        }
        return String.format(Locale.ROOT, "; saturated %.1f s of the slowest node's %.1f s", trial.cpuSaturatedSeconds(),
                trial.slowest());
    }

    /** Our nodes' time from the last piece to the file in place: median and slowest, and the parts' medians. */
    private static void printAfterLastPiece(PrintWriter out, FleetTrial trial) {
        List<AfterLastPiece> after = trial.nodes().stream().map(FleetNode::afterLastPiece).filter(a -> a != null).toList();
        if (after.isEmpty()) {
            return;
        }
        out.printf(Locale.ROOT, "  after the last piece: median %.3f s, max %.3f s (medians: spot check %.3f s, end-to-end"
                        + " check %.3f s, fsync and rename %.3f s)%n", median(after, AfterLastPiece::total),
                after.stream().mapToDouble(AfterLastPiece::total).max().orElse(0), median(after, AfterLastPiece::spotCheck),
                median(after, AfterLastPiece::hashing), median(after, AfterLastPiece::commit));
    }

    /** The median of one part over {@code after} (not empty), as {@link ClusterCommand#median(List)} takes it. */
    private static double median(List<AfterLastPiece> after, java.util.function.ToDoubleFunction<AfterLastPiece> part) {
        return ClusterCommand.median(after.stream().map(a -> part.applyAsDouble(a)).toList());
    }

    static void printSummary(PrintWriter out, FluidBound tStar, List<FleetReport> reports) {
        out.printf(Locale.ROOT, "%nsummary (medians over trials; T* = %.3f s, binds: %s)%n", tStar.seconds(), tStar.binds());
        out.printf(Locale.ROOT, "  %-17s %9s %9s %9s %9s %8s %10s %6s %6s %9s  %s%n", "contender", "slowest s",
                "mean s", "slow/T*", "mean/T*", "S3/S", "CPU s/node", "CPU%", "sat%", "CPU-bound", "sha256");
        for (FleetReport r : reports) {
            // the median over trials of the share of the slowest node's fetch that the machine was saturated
            Double saturated = FleetCommand.median(r.runs(), FleetTrial::cpuSaturatedShare);
            out.printf(Locale.ROOT, "  %-17s %9s %9s %9s %9s %8.2f %10s %5.0f%% %6s %9s  %s%n", r.contender(),
                    num(r.slowestSeconds()), num(r.meanSeconds()), num(r.slowestOverTStar()), num(r.meanOverTStar()),
                    r.s3BytesOverSize(), num(r.cpuSecondsPerNode()), 100 * r.cpuUtilisation(),
                    saturated == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * saturated),
                    r.cpuBound() ? "yes" : "no", r.sha256Match() ? "ok" : "MISMATCH");
        }
    }

    static final String CSV_HEADER = "level,contender,kind,nodes,size,trial,node,link,seconds,exitSeconds,phase1EndSeconds,"
            + "phase2EndSeconds,bytesFromS3,bytesFromS3Reported,bytesFromPeers,piecesStolen,cpuSeconds,gcSeconds,"
            + "jitSeconds,peakRssBytes,sha256Match,tStar,tStarBinds,error,hedges";

    static List<String> csv(List<FleetReport> reports) {
        List<String> rows = new ArrayList<>();
        rows.add(CSV_HEADER);
        for (FleetReport r : reports) {
            for (FleetTrial t : r.runs()) {
                for (FleetNode n : t.nodes()) {
                    rows.add(String.join(",", r.level(), r.contender(), r.kind(), String.valueOf(r.nodes()),
                            String.valueOf(r.size()), String.valueOf(t.trial()), String.valueOf(n.node()), n.link(),
                            cell(n.seconds()), cell(n.exitSeconds()), cell(n.phase1EndSeconds()), cell(n.phase2EndSeconds()),
                            String.valueOf(n.bytesFromS3()), cell(n.bytesFromS3Reported()), cell(n.bytesFromPeers()),
                            cell(n.piecesStolen()), cell(n.cpuSeconds()), cell(n.gcSeconds()), cell(n.jitSeconds()),
                            cell(n.peakRssBytes()), String.valueOf(n.sha256Match()), String.valueOf(r.tStar().seconds()),
                            r.tStar().binds(), n.error() == null ? "" : '"' + n.error().replace("\"", "'") + '"',
                            cell(n.hedges())));
                }
            }
        }
        return rows;
    }

    private static String cell(Object v) {
        return v == null ? "" : v.toString();
    }

    private static String num(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.3f", v);
    }
}
