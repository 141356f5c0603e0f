package io.s3broadcast.bench.chaos;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One fault case over its trials, printed as one JSON line.
 *
 * @param command always {@code chaos}
 * @param faultCase the case's name
 * @param nodes honest nodes per trial
 * @param objectBytes the object's size
 * @param trials trials run
 * @param completed nodes that published the exact object, over every trial
 * @param couldComplete nodes that could have (not killed for good; not where the fault forbids it), plus any
 *     that completed anyway (before the fault struck)
 * @param wrongBytes files at a destination path of the object's size whose SHA-256 differs
 * @param partialFiles files at a destination path of another size
 * @param leftoverFiles other files in the destination directories after the nodes exited (temporary files)
 * @param leftoverExamples a few of their names
 * @param errorsByKind failed nodes by the kind of their error; {@code hung}: no exit within the node timeout;
 *     {@code no-result}: exited without a result line
 * @param killed nodes killed for good (not restarted)
 * @param restarted nodes killed and started again
 * @param restartedCompleted restarted nodes that then completed
 * @param s3BytesAfterRestartPerObject each restarted node's S3 bytes after its restart, over the object's size
 * @param detectSeconds failed nodes: from the fault (or the fetch's start) to the node's exit
 * @param doneAfterFaultSeconds completed nodes: from the fault to their file in place
 * @param counts what the case counted (faults injected, bytes the adversary got, ...)
 * @param seconds wall time of the case
 * @param passed every node that could complete did, byte-exact; nothing wrong or partial at a destination; no
 *     hang; no failure without a result line
 * @param notes what else the trials saw
 */
@JsonPropertyOrder({"command", "case", "nodes", "objectBytes", "trials", "completed", "couldComplete", "wrongBytes",
    "partialFiles", "leftoverFiles", "leftoverExamples", "errorsByKind", "killed", "restarted", "restartedCompleted",
    "s3BytesAfterRestartPerObject", "detectSeconds", "doneAfterFaultSeconds", "counts", "seconds", "passed", "notes"})
public record MatrixResult(String command, @com.fasterxml.jackson.annotation.JsonProperty("case") String faultCase,
        int nodes, long objectBytes, int trials, int completed, int couldComplete, int wrongBytes, int partialFiles,
        int leftoverFiles, List<String> leftoverExamples, Map<String, Integer> errorsByKind, int killed, int restarted,
        int restartedCompleted, List<Double> s3BytesAfterRestartPerObject, Spread detectSeconds,
        Spread doneAfterFaultSeconds, Map<String, Long> counts, double seconds, boolean passed, String notes) {

    /** Median and maximum of some seconds, and how many there were. */
    public record Spread(int n, Double median, Double max) {
        static Spread of(List<Double> values) {
            List<Double> v = values.stream().sorted().toList();
            if (v.isEmpty()) {
                return new Spread(0, null, null);
            }
            double median = v.size() % 2 == 1 ? v.get(v.size() / 2) : (v.get(v.size() / 2 - 1) + v.get(v.size() / 2)) / 2;
            return new Spread(v.size(), round(median), round(v.get(v.size() - 1)));
        }
    }

    static double round(double d) {
        return Math.round(d * 1000) / 1000.0;
    }

    /** Adds up the trials of one case. */
    static final class Tally {
        private final String name;
        private final int nodes;
        private final long size;
        private int trials;
        private int completed;
        private int could;
        private int wrong;
        private int partial;
        private final List<String> leftovers = new ArrayList<>();
        private final Map<String, Integer> errors = new TreeMap<>();
        private int killed;
        private int restarted;
        private int restartedCompleted;
        private final List<Double> s3After = new ArrayList<>();
        private final List<Double> detect = new ArrayList<>();
        private final List<Double> doneAfter = new ArrayList<>();
        private final Map<String, Long> counts = new TreeMap<>();
        private final StringBuilder notes = new StringBuilder();

        Tally(String name, int nodes, long size) {
            this.name = name;
            this.nodes = nodes;
            this.size = size;
        }

        void add(int trial, List<NodeOutcome> outcomes, Map<String, Long> trialCounts, String trialNotes) {
            trials++;
            for (int i = 0; i < outcomes.size(); i++) {
                NodeOutcome o = outcomes.get(i);
                boolean done = o.completed() && o.destination().equals("exact");
                completed += done ? 1 : 0;
                could += o.couldComplete() || done ? 1 : 0;
                wrong += o.destination().equals("wrong") ? 1 : 0;
                partial += o.destination().equals("partial") ? 1 : 0;
                for (String l : o.leftovers()) {
                    leftovers.add("trial-" + trial + "/node-" + i + "/" + l);
                }
                if (o.errorKind() != null) {
                    errors.merge(o.errorKind(), 1, Integer::sum);
                }
                killed += o.status().equals("killed") ? 1 : 0;
                if (o.s3BytesAfterRestart() != null) {
                    restarted++;
                    restartedCompleted += done ? 1 : 0;
                    s3After.add(round((double) o.s3BytesAfterRestart() / size));
                }
                if (o.detectSeconds() != null) {
                    detect.add(o.detectSeconds());
                }
                if (o.doneAfterFaultSeconds() != null) {
                    doneAfter.add(o.doneAfterFaultSeconds());
                }
                if (o.couldComplete() && !done && o.error() != null) {
                    note("trial-" + trial + " node-" + i + ": " + o.error());
                }
            }
            trialCounts.forEach((k, v) -> counts.merge(k, v, Long::sum));
            if (!trialNotes.isEmpty()) {
                note("trial-" + trial + ": " + trialNotes);
            }
        }

        private void note(String s) {
            if (notes.length() < 4000) {
                notes.append(s.length() > 400 ? s.substring(0, 400) + "..." : s).append(" | ");
            }
        }

        MatrixResult result(double seconds) {
            boolean passed = wrong == 0 && partial == 0 && completed == could && !errors.containsKey("hung")
                    && !errors.containsKey("no-result");
            return new MatrixResult("chaos", name, nodes, size, trials, completed, could, wrong, partial,
                    leftovers.size(), leftovers.stream().limit(5).toList(), errors, killed, restarted,
                    restartedCompleted, s3After, Spread.of(detect), Spread.of(doneAfter), counts, round(seconds), passed,
                    notes.toString());
        }
    }
}
