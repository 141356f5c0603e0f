package io.s3broadcast.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * One trial of one contender on the fleet.
 *
 * @param trial 1-based
 * @param fastest seconds of the first node done
 * @param mean mean seconds over the nodes done
 * @param slowest seconds of the last node; null if any failed
 * @param bytesFromS3 bytes the S3 proxy sent to all nodes together
 * @param s3Reads {@code bytesFromS3 / size}
 * @param cpuSeconds CPU of the whole fleet in the trial (all node processes; in-process: the bench's JVM, S3 server
 *     and proxy included)
 * @param cpuUtilisation {@code cpuSeconds / (wall * cores)}, wall the time to the last process exit (or the slowest
 *     node's completion in-process): near 1 means the run was CPU-bound
 * @param cpuSaturatedSeconds seconds from the start signal to the slowest node's fetch end during which the whole
 *     machine's cores were saturated ({@link CpuSaturation}); null without {@code /proc/stat} or if a node failed
 * @param sha256Match whether every node's file has the object's SHA-256
 * @param nodes per node
 * @param throughput with {@code --join}/{@code --leave}: the aggregate MB/s all nodes received (from S3 and peers, as
 *     they report completed pieces) per {@link Churn#BUCKET_MILLIS} bucket from the start; else null
 * @param joinSeconds when the joiners started, seconds from the start signal; null without joiners
 * @param leaveSeconds when the leavers left, seconds from the start signal; null without leavers
 * @param linkUse netns: for each second from the start signal to the slowest node's end, what all nodes downloaded
 *     as a share of their links' capacity ({@link LinkUse}); else, or if not known, null
 * @param uploadLinkUse the same for what all nodes uploaded, as a share of their upload links' capacity
 * @param linkUseByNode netns: {@code linkUse} for each node alone (in node order), as a share of its own link's
 *     capacity; else, or if not known, null
 * @param uploadLinkUseByNode the same for what each node uploaded
 */
@JsonPropertyOrder({"trial", "fastest", "mean", "slowest", "bytesFromS3", "s3Reads", "cpuSeconds", "cpuUtilisation",
        "cpuSaturatedSeconds", "sha256Match", "nodes", "throughput", "joinSeconds", "leaveSeconds", "linkUse", "uploadLinkUse",
        "linkUseByNode", "uploadLinkUseByNode"})
record FleetTrial(int trial, Double fastest, Double mean, Double slowest, long bytesFromS3, double s3Reads,
        double cpuSeconds, double cpuUtilisation, Double cpuSaturatedSeconds, boolean sha256Match, List<FleetNode> nodes,
        List<Double> throughput, Double joinSeconds, Double leaveSeconds, List<Double> linkUse,
        List<Double> uploadLinkUse, List<List<Double>> linkUseByNode, List<List<Double>> uploadLinkUseByNode) {

    /** This trial with its throughput time series and the times of its join and leave. */
    FleetTrial withChurn(List<Double> series, ChurnClock clock) {
        return new FleetTrial(trial, fastest, mean, slowest, bytesFromS3, s3Reads, cpuSeconds, cpuUtilisation,
                cpuSaturatedSeconds, sha256Match, nodes, series == null ? null : List.copyOf(series),
                clock == null ? null : clock.joinedSeconds(), clock == null ? null : clock.leftSeconds(), linkUse,
                uploadLinkUse, linkUseByNode, uploadLinkUseByNode);
    }

    /**
     * This trial with the seconds {@code cpu} found the machine saturated from the start signal ({@code
     * startMillis}, epoch ms) to the slowest node's fetch end.
     */
    FleetTrial withCpuSaturation(CpuSaturation cpu, long startMillis) {
        Double saturated = slowest == null ? null
                : cpu.saturatedSeconds(startMillis, startMillis + Math.round(slowest * 1e3));
        return new FleetTrial(trial, fastest, mean, slowest, bytesFromS3, s3Reads, cpuSeconds, cpuUtilisation,
                saturated == null ? null : SingleCommand.round(saturated, 2), sha256Match, nodes, throughput,
                joinSeconds, leaveSeconds, linkUse, uploadLinkUse, linkUseByNode, uploadLinkUseByNode);
    }

    /**
     * This trial with what {@code download} and {@code upload} read from the start signal ({@code startMillis}, epoch
     * ms) to the slowest node's fetch end, second by second.
     */
    FleetTrial withLinkUse(LinkUse download, LinkUse upload, long startMillis) {
        return new FleetTrial(trial, fastest, mean, slowest, bytesFromS3, s3Reads, cpuSeconds, cpuUtilisation,
                cpuSaturatedSeconds, sha256Match, nodes, throughput, joinSeconds, leaveSeconds,
                perSecond(download, startMillis), perSecond(upload, startMillis), byNode(download, startMillis),
                byNode(upload, startMillis));
    }

    private List<Double> perSecond(LinkUse links, long startMillis) {
        List<Double> use = slowest == null ? null : links.perSecond(startMillis, startMillis + Math.round(slowest * 1e3));
        return use == null ? null : List.copyOf(use);
    }

    private List<List<Double>> byNode(LinkUse links, long startMillis) {
        List<List<Double>> use = slowest == null ? null
                : links.perSecondByCounter(startMillis, startMillis + Math.round(slowest * 1e3));
        return use == null ? null : List.copyOf(use);
    }

    /** {@code cpuSaturatedSeconds / slowest}: the share of the slowest node's fetch that the machine was saturated. */
    Double cpuSaturatedShare() {
        return cpuSaturatedSeconds == null || slowest == null || slowest <= 0 ? null : cpuSaturatedSeconds / slowest;
    }

    static FleetTrial of(int trial, List<FleetNode> nodes, long size, double cpuSeconds, int cores) {
        return of(trial, nodes, size, cpuSeconds, cores, 0);
    }

    /**
     * @param beforeStart seconds the node processes ran before the start signal (JVM start-up), whose CPU is in
     *     {@code cpuSeconds} too
     */
    static FleetTrial of(int trial, List<FleetNode> nodes, long size, double cpuSeconds, int cores, double beforeStart) {
        // A node that left on purpose (--leave) is neither waited for nor checked.
        List<FleetNode> staying = nodes.stream().filter(n -> !n.leaver()).toList();
        List<Double> done = staying.stream().map(FleetNode::seconds).filter(Objects::nonNull).sorted().toList();
        boolean all = done.size() == staying.size() && staying.stream().allMatch(n -> n.error() == null);
        long s3 = nodes.stream().mapToLong(FleetNode::bytesFromS3).sum();
        Double slowest = all && !done.isEmpty() ? done.get(done.size() - 1) : null;
        // CPU is sampled until the processes exit, so it is spread over the time to the last exit where known.
        double lastExit = nodes.stream().map(FleetNode::exitSeconds).filter(Objects::nonNull).mapToDouble(d -> d)
                .max().orElse(0);
        double wall = beforeStart + Math.max(lastExit, done.isEmpty() ? 0 : done.get(done.size() - 1));
        return new FleetTrial(trial, done.isEmpty() ? null : done.get(0),
                done.isEmpty() ? null : SingleCommand.round(done.stream().mapToDouble(d -> d).average().orElseThrow(), 3),
                slowest, s3, size == 0 ? 0 : SingleCommand.round((double) s3 / size, 3), SingleCommand.round(cpuSeconds, 2),
                wall <= 0 ? 0 : SingleCommand.round(cpuSeconds / (wall * cores), 3), null,
                all && staying.stream().allMatch(FleetNode::sha256Match), List.copyOf(nodes), null, null, null, null, null, null,
                null);
    }
}
