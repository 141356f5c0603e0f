package io.s3broadcast.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The human-readable tables of {@code cluster} and {@code demo}. */
final class ClusterTables {

    private ClusterTables() {
    }

    /** One row per node of one trial. */
    static void printNodes(PrintWriter out, String title, ClusterTrial trial) {
        out.printf(Locale.ROOT, "%n%s%n", title);
        out.printf(Locale.ROOT, "  %-4s %-17s %8s %8s %8s %10s %10s %7s  %s%n", "node", "id", "seconds", "phase1",
                "phase2", "S3 MiB", "peers MiB", "stolen", "sha256");
        for (NodeResult n : trial.nodes()) {
            if (n.error() != null) {
                out.printf(Locale.ROOT, "  %-4s %-17s FAILED: %s%n", label(n), n.nodeId(), n.error());
                continue;
            }
            out.printf(Locale.ROOT, "  %-4s %-17s %8.3f %8.3f %8.3f %10.1f %10.1f %7d  %s%n", label(n), n.nodeId(),
                    n.seconds(), n.phase1Seconds(), n.phase2Seconds(), mib(n.bytesFromS3()), mib(n.bytesFromPeers()),
                    n.piecesStolen(), n.sha256Match() ? "ok" : "MISMATCH");
        }
        out.printf(Locale.ROOT, "  fastest %s s, average %s s, slowest %s s; S3 read the object %.2f times%n",
                trial.fastest(), trial.average(), trial.slowest(), trial.s3Reads());
    }

    /** Nodes of several strategies' trials side by side: completion seconds and S3 MiB per node. */
    static void printSideBySide(PrintWriter out, Map<String, ClusterTrial> trials) {
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "  %-4s", "node"));
        for (String name : trials.keySet()) {
            head.append(String.format(Locale.ROOT, " | %-10s %8s %8s %6s", name, "seconds", "S3 MiB", "stolen"));
        }
        out.println();
        out.println(head);
        int nodes = trials.values().stream().mapToInt(t -> t.nodes().size()).max().orElse(0);
        for (int i = 0; i < nodes; i++) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "  %-4d", i));
            for (ClusterTrial t : trials.values()) {
                NodeResult n = i < t.nodes().size() ? t.nodes().get(i) : null;
                if (n == null || n.error() != null) {
                    row.append(String.format(Locale.ROOT, " | %-10s %8s %8s %6s", "", "FAILED", "", ""));
                } else {
                    row.append(String.format(Locale.ROOT, " | %-10s %8.3f %8.1f %6d", n.sha256Match() ? "sha ok" : "MISMATCH",
                            n.seconds(), mib(n.bytesFromS3()), n.piecesStolen()));
                }
            }
            out.println(row);
        }
        for (String stat : List.of("fastest", "average", "slowest", "S3 reads")) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "  %-4s", ""));
            for (ClusterTrial t : trials.values()) {
                Double v = switch (stat) {
                    case "fastest" -> t.fastest();
                    case "average" -> t.average();
                    case "slowest" -> t.slowest();
                    default -> t.s3Reads();
                };
                String shown = v == null ? "-" : String.format(Locale.ROOT, stat.equals("S3 reads") ? "%.2f" : "%.3f", v);
                row.append(String.format(Locale.ROOT, " | %-10s %8s %8s %6s", stat, shown, "", ""));
            }
            out.println(row);
        }
    }

    /** One row per strategy: medians over the trials. */
    static void printSummary(PrintWriter out, List<ClusterReport> reports) {
        out.printf(Locale.ROOT, "%n  %-10s %6s %9s %9s %9s %8s  %s%n", "strategy", "trials", "fastest", "average",
                "slowest", "S3 reads", "sha256");
        for (ClusterReport r : reports) {
            out.printf(Locale.ROOT, "  %-10s %6d %9s %9s %9s %8.2f  %s%n", Converters.name(io.s3broadcast.Strategy.valueOf(r.strategy())),
                    r.trials(), orDash(r.fastest()), orDash(r.average()), orDash(r.slowest()), r.s3Reads(),
                    r.sha256Match() ? "ok" : "MISMATCH");
        }
        out.println("  (seconds from the common start to each node's file in place; medians over the trials)");
    }

    private static String orDash(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String label(NodeResult n) {
        return n.throttled() ? n.node() + "*" : String.valueOf(n.node());
    }

    private static double mib(Long bytes) {
        return bytes == null ? 0 : bytes / 1048576.0;
    }
}
