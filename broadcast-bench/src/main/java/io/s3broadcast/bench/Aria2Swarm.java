package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** The {@code aria2-swarm} baseline: BitTorrent with S3 as web seed. */
final class Aria2Swarm {

    private Aria2Swarm() {
    }

    static List<FleetNode> run(NetnsFleet fleet, FleetCommand.FleetSpec spec, Testbed testbed, Path dir, int trial)
            throws IOException, InterruptedException {
        throw new IOException("aria2-swarm is not built yet");
    }
}
