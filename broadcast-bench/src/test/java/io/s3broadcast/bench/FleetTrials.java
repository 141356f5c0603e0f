package io.s3broadcast.bench;

import java.util.List;

/** Fleet trials for the tests of the fleet's report and tables: two nodes on 10 MB/s links. */
final class FleetTrials {

    private FleetTrials() {
    }

    /** A trial whose nodes took half of {@code slowest} and {@code slowest} s, at {@code utilisation} of two cores. */
    static FleetTrial of(double slowest, double utilisation) {
        List<FleetNode> nodes = List.of(node(0, slowest / 2), node(1, slowest));
        return FleetTrial.of(1, nodes, 96L << 20, utilisation * slowest * 2, 2);
    }

    /** That trial, the machine saturated for {@code saturatedSeconds} (null: not known). */
    static FleetTrial of(double slowest, double utilisation, Double saturatedSeconds) {
        FleetTrial t = of(slowest, utilisation);
        return new FleetTrial(t.trial(), t.fastest(), t.mean(), t.slowest(), t.bytesFromS3(), t.s3Reads(),
                t.cpuSeconds(), t.cpuUtilisation(), saturatedSeconds, t.sha256Match(), t.nodes(), t.throughput(),
                t.joinSeconds(), t.leaveSeconds(), t.linkUse(), t.uploadLinkUse(), t.linkUseByNode(),
                t.uploadLinkUseByNode());
    }

    static FleetNode node(int node, Double seconds) {
        return new FleetNode(node, "node-" + node, "10MB", seconds, null, null, null, 96L << 20, null, 0L, null, null,
                null, null, null, seconds != null, seconds != null ? null : "failed");
    }
}
