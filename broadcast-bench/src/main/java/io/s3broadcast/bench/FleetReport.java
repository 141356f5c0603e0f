package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/**
 * The JSON line of {@code fleet} for one contender (a strategy of ours or a baseline); fields in docs/bench.md.
 *
 * @param command always {@code fleet}
 * @param level {@code netns} or {@code inprocess}
 * @param contender {@code flat}, {@code non-steal}, {@code steal}, {@code overlap}, {@code transfer-manager},
 *     {@code aria2-flat} or {@code aria2-swarm}
 * @param kind {@code strategy} (ours) or {@code baseline}
 * @param nodes N
 * @param size S, bytes
 * @param trials trials run
 * @param s3Profile the S3 profile, described
 * @param links each node's link, in node order
 * @param latencyMillis added one-way latency per link (netns), 0 for none
 * @param tcpCongestionControl the TCP congestion control the nodes sent to each other with (netns: set in their
 *     namespaces, {@code cubic} unless told otherwise; in-process: this machine's), null when unknown
 * @param cpuPerNode CPU share per node process (cores), or null for none
 * @param tStar the fluid lower bound for N, S, D, U, O
 * @param slowestSeconds median over trials of the slowest node's seconds
 * @param meanSeconds median over trials of the mean node's seconds
 * @param slowestOverTStar {@code slowestSeconds / T*}
 * @param meanOverTStar {@code meanSeconds / T*}
 * @param s3BytesOverSize mean over trials of S3 bytes (from the proxy) / S
 * @param cpuSecondsPerNode mean over trials and nodes of each node process's CPU seconds (netns), or the fleet's CPU
 *     divided by N (in-process, where nodes share the process)
 * @param cpuUtilisation mean over trials of the fleet's CPU seconds / (slowest * cores)
 * @param cpuBound whether any trial was CPU-bound ({@link #isCpuBound(FleetTrial)}): then the emulation, not the
 *     links, may have set the times
 * @param sha256Match whether every node of every trial had the object's SHA-256
 * @param settings transfer settings of our nodes
 * @param runs every trial
 * @param machine what it ran on
 */
@JsonPropertyOrder({"command", "level", "contender", "kind", "nodes", "size", "trials", "s3Profile", "links",
        "latencyMillis", "tcpCongestionControl", "cpuPerNode", "tStar", "slowestSeconds", "meanSeconds",
        "slowestOverTStar", "meanOverTStar", "s3BytesOverSize", "cpuSecondsPerNode", "cpuUtilisation", "cpuBound",
        "sha256Match", "settings", "runs", "machine"})
record FleetReport(String command, String level, String contender, String kind, int nodes, long size, int trials,
        String s3Profile, List<String> links, double latencyMillis, String tcpCongestionControl, Double cpuPerNode,
        FluidBound tStar, Double slowestSeconds, Double meanSeconds, Double slowestOverTStar, Double meanOverTStar,
        double s3BytesOverSize, Double cpuSecondsPerNode, double cpuUtilisation, boolean cpuBound, boolean sha256Match,
        Map<String, Object> settings, List<FleetTrial> runs, Machine machine) {

    /** Share of the machine's cores above which a run counts as CPU-bound. */
    static final double CPU_BOUND = 0.9;

    /**
     * Share of the slowest node's fetch time during which the machine may be saturated ({@link CpuSaturation}) before
     * a run counts as CPU-bound, whatever its average. A run whose start is saturated (every node JVM and the S3 server
     * starting their work at once on a machine of few cores) measures the machine, not the links, while its average
     * over the whole trial stays well below {@link #CPU_BOUND}: e.g. 8 nodes on 2 cores, saturated for 6 s of 18 s
     * and at 72% on average.
     */
    static final double CPU_SATURATED_BOUND = 0.25;

    /**
     * Whether {@code trial} was CPU-bound: the fleet's CPU reached {@link #CPU_BOUND} of the cores on average, or the
     * machine was saturated for {@link #CPU_SATURATED_BOUND} of the slowest node's fetch time or more.
     */
    static boolean isCpuBound(FleetTrial trial) {
        Double saturated = trial.cpuSaturatedShare();
        return trial.cpuUtilisation() >= CPU_BOUND || saturated != null && saturated >= CPU_SATURATED_BOUND;
    }
}
