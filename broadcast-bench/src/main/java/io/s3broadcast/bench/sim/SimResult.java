package io.s3broadcast.bench.sim;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.s3broadcast.spi.cluster.WorkSizing;
import java.util.List;

/**
 * What a simulated broadcast predicts. Times are virtual seconds from the common start; a node's completion is its last
 * piece plus the configured after-last-piece time (on a shared host: that much CPU, shared with the other nodes' ends,
 * {@link HostCpu#endsNanos}). Per-node counts are means with the largest beside them.
 *
 * @param completed whether every node got every piece before the limit
 * @param slowest the slowest node's completion
 * @param mean the mean completion
 * @param fastest the fastest node's completion
 * @param phase1EndMean mean time a node's phase 1 ended (its own list empty, nothing left to steal)
 * @param phase2Mean mean of completion minus phase-1 end
 * @param s3BytesOverS bytes read from S3 by all nodes over the object size
 * @param s3GetsPerNode ranged GETs per node, mean
 * @param s3Connections S3 connections per node (the work sizing's), rangeBytes its range
 * @param rangeBytes bytes per ranged GET
 * @param connectionsMax peer connections of the best-connected node
 * @param connectionsMean peer connections per node, mean
 * @param overlayConnected whether the overlay connects every node to every other (through others)
 * @param messagesPerNode control messages a node sent, mean ({@code PIECE} frames not counted)
 * @param messagesPerNodeMax the most any node sent
 * @param controlBytesPerNode bytes of those messages with frame headers, plus {@code PIECE} headers, mean
 * @param controlBytesPerNodeMax the most any node sent
 * @param piecesStolen pieces read from S3 from works taken from other nodes, all nodes
 * @param events events the simulation ran
 * @param rateRecomputations recomputations of the fluid rates
 * @param peakFlows most flows busy at once
 * @param wallSeconds how long the simulation itself took
 * @param idle where the nodes' download links idled ({@link Idle})
 * @param cpu the CPU the nodes used of a shared host ({@link Cpu}); null when each node has cores of its own
 * @param completions each node's completion, in node order
 */
@JsonPropertyOrder({"strategy", "nodes", "completed", "slowest", "mean", "fastest", "phase1EndMean", "phase2Mean",
    "s3BytesOverS", "s3GetsPerNode", "s3Connections", "rangeBytes", "connectionsMax", "connectionsMean",
    "overlayConnected", "messagesPerNode", "messagesPerNodeMax", "controlBytesPerNode", "controlBytesPerNodeMax",
    "piecesStolen", "events", "rateRecomputations", "peakFlows", "wallSeconds", "idle", "cpu"})
public record SimResult(String strategy, int nodes, boolean completed, double slowest, double mean, double fastest,
        double phase1EndMean, double phase2Mean, double s3BytesOverS, double s3GetsPerNode, int s3Connections,
        long rangeBytes, int connectionsMax, double connectionsMean, boolean overlayConnected, double messagesPerNode,
        long messagesPerNodeMax, double controlBytesPerNode, long controlBytesPerNodeMax, long piecesStolen,
        long events, long rateRecomputations, int peakFlows, double wallSeconds, Idle idle, Cpu cpu,
        List<Double> completions) {

    /**
     * The CPU the nodes used of the host they share ({@link HostCpu}), from the start to their last piece.
     *
     * @param startSeconds when the nodes' cold starts ended (their first GETs)
     * @param perNodeMean CPU-seconds a node used: its start and the bytes it took in and passed on, mean
     * @param perNodeMax the most any node used
     * @param hostBusy the nodes' CPU-seconds over the host's cores times the slowest node's last piece
     */
    public record Cpu(double startSeconds, double perNodeMean, double perNodeMax, double hostBusy) {
    }

    /**
     * Where the time went: a node's download link idle, in seconds of its capacity left unused (its time from the
     * start to its last piece minus the bytes it carried over its capacity), split at the moments the node held a
     * tenth and nine tenths of the pieces. Only for nodes with a finite download capacity.
     *
     * @param firstPieceMean mean time a node held its first piece (seconds from the common start)
     * @param headMean idle from the start (after the calibrated start time) to a tenth of the pieces, mean
     * @param middleMean idle from a tenth to nine tenths, mean
     * @param tailMean idle from nine tenths to the last piece, mean
     * @param totalMean the sum of the three, mean
     * @param totalMax the most any node idled
     * @param slowestHead the slowest node's idle before a tenth of its pieces
     * @param slowestMiddle the slowest node's idle between a tenth and nine tenths
     * @param slowestTail the slowest node's idle after nine tenths
     * @param uploadBusy bytes all nodes uploaded over what their uploads could carry from the start to the slowest
     *     node's last piece
     * @param duplicatesOverS piece bytes a node received that it held already (endgame duplicates), over the object
     *     size, mean
     */
    public record Idle(double firstPieceMean, double headMean, double middleMean, double tailMean, double totalMean,
            double totalMax, double slowestHead, double slowestMiddle, double slowestTail, double uploadBusy,
            double duplicatesOverS) {
    }

    static SimResult of(SimConfig config, long startNanos, List<SimNode> nodes, Overlay overlay,
            WorkSizing.Sizing sizing, EventQueue events, FluidNetwork network, boolean done, double wallSeconds) {
        int n = nodes.size();
        double spot = (config.strategy() == io.s3broadcast.Strategy.FLAT_TREE ? 0 : config.spotCheck().toNanos()) / 1e9;
        // On a shared host the work after the last piece is CPU the ends that overlap share (HostCpu.endsNanos); with
        // cores of its own a node spends the fixed time.
        long[] ends = null;
        if (config.hostCpu() != null) {
            long[] last = new long[n];
            for (int i = 0; i < n; i++) {
                last[i] = nodes.get(i).lastPiece;
            }
            ends = config.hostCpu().endsNanos(last, config.afterLastPiece().toNanos() / 1e9);
        }
        double after = config.afterLastPiece().toNanos() / 1e9 + spot;
        double[] completion = new double[n];
        double slowest = 0;
        double fastest = Double.MAX_VALUE;
        double sum = 0;
        double p1 = 0;
        double p2 = 0;
        long s3 = 0;
        long gets = 0;
        long msgs = 0;
        long msgsMax = 0;
        long ctrl = 0;
        long ctrlMax = 0;
        long stolen = 0;
        for (int i = 0; i < n; i++) {
            SimNode node = nodes.get(i);
            double c = node.lastPiece < 0 ? Double.NaN
                    : ends != null ? ends[i] / 1e9 + spot : node.lastPiece / 1e9 + after;
            completion[i] = c;
            slowest = Math.max(slowest, Double.isNaN(c) ? Double.POSITIVE_INFINITY : c);
            fastest = Math.min(fastest, Double.isNaN(c) ? Double.POSITIVE_INFINITY : c);
            sum += c;
            double end1 = node.phase1End < 0 ? (node.lastPiece < 0 ? 0 : node.lastPiece / 1e9) : node.phase1End / 1e9;
            p1 += end1;
            p2 += c - end1;
            s3 += node.s3Bytes;
            gets += node.s3Gets;
            msgs += node.messages;
            msgsMax = Math.max(msgsMax, node.messages);
            ctrl += node.controlBytes;
            ctrlMax = Math.max(ctrlMax, node.controlBytes);
            stolen += node.piecesStolen;
        }
        Idle idle = idle(config, startNanos, nodes, network);
        return new SimResult(config.strategy().toString(), n, done, r(slowest), r(sum / n), r(fastest), r(p1 / n),
                r(p2 / n), r((double) s3 / config.size()), r((double) gets / n), sizing.connections(),
                sizing.rangeBytes(), overlay.maxDegree(), r(overlay.meanDegree()), overlay.connected(),
                r((double) msgs / n),
                msgsMax, r((double) ctrl / n), ctrlMax, stolen, events.executed(), network.recomputations(),
                network.peakBusyFlows(), r(wallSeconds), idle, cpu(config, startNanos, nodes), java.util.Arrays.stream(completion).map(SimResult::r).boxed()
                        .toList());
    }

    private static Cpu cpu(SimConfig config, long startNanos, List<SimNode> nodes) {
        HostCpu cpu = config.hostCpu();
        if (cpu == null) {
            return null;
        }
        double sum = 0;
        double max = 0;
        long end = 0;
        for (SimNode node : nodes) {
            double c = cpu.startSeconds() + node.dataCpuSeconds();
            sum += c;
            max = Math.max(max, c);
            end = Math.max(end, node.lastPiece);
        }
        return new Cpu(r(startNanos / 1e9), r(sum / nodes.size()), r(max), end > 0 ? r(sum / (cpu.cores() * end / 1e9)) : 0);
    }

    private static Idle idle(SimConfig config, long startNanos, List<SimNode> nodes, FluidNetwork network) {
        double start = startNanos / 1e9;
        double first = 0;
        double head = 0;
        double middle = 0;
        double tail = 0;
        double max = 0;
        int counted = 0;
        double[] slowest = new double[3];
        long slowestLast = -1;
        double uploaded = 0;
        double uploadCapacity = 0;
        double duplicates = 0;
        long end = 0;
        for (SimNode node : nodes) {
            end = Math.max(end, node.lastPiece);
        }
        for (SimNode node : nodes) {
            duplicates += node.duplicateBytes;
            long down = config.down()[node.index];
            if (node.up() > 0) {
                uploaded += network.uploaded(node.index);
                uploadCapacity += node.up() * (end / 1e9 - start);
            }
            if (down <= 0 || node.lastPiece < 0 || node.tenth < 0 || node.nineTenths < 0) {
                continue;
            }
            double h = node.tenth / 1e9 - start - node.downAtTenth / down;
            double m = (node.nineTenths - node.tenth) / 1e9 - (node.downAtNineTenths - node.downAtTenth) / down;
            double t = (node.lastPiece - node.nineTenths) / 1e9 - (node.downAtLast - node.downAtNineTenths) / down;
            first += node.firstPiece / 1e9;
            head += h;
            middle += m;
            tail += t;
            max = Math.max(max, h + m + t);
            counted++;
            if (node.lastPiece > slowestLast) {
                slowestLast = node.lastPiece;
                slowest = new double[] {h, m, t};
            }
        }
        int c = Math.max(1, counted);
        return new Idle(r(first / c), r(head / c), r(middle / c), r(tail / c), r((head + middle + tail) / c), r(max),
                r(slowest[0]), r(slowest[1]), r(slowest[2]), uploadCapacity > 0 ? r(uploaded / uploadCapacity) : 0,
                r(duplicates / nodes.size() / config.size()));
    }

    private static double r(double v) {
        return Double.isFinite(v) ? Math.round(v * 1000) / 1000.0 : v;
    }
}
