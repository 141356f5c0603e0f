package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code fleet --level netns}: a network namespace and a node JVM per node. */
final class NetnsFleet {

    private NetnsFleet() {
    }

    /** Why namespaces cannot be made here, or null when they can. */
    static String available() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return "network namespaces need Linux";
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return "creating network namespaces needs root (user is " + System.getProperty("user.name") + ")";
        }
        for (String tool : new String[] {"ip", "tc"}) {
            if (FleetTools.find(tool) == null) {
                return tool + " is not installed: apt-get install -y iproute2";
            }
        }
        if (!Files.isDirectory(Path.of("/var/run/netns")) && !Files.isWritable(Path.of("/var/run"))) {
            return "/var/run/netns cannot be created";
        }
        return null;
    }

    static FleetCommand.FleetLevel open(FleetCommand.FleetSpec spec, Testbed testbed, Path dir)
            throws IOException, InterruptedException {
        throw new UnsupportedOperationException("--level netns is not built yet: use --level inprocess");
    }
}
