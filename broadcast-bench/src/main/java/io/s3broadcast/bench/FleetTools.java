package io.s3broadcast.bench;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** The external tools the fleet's baselines and namespaces need, and which Debian package brings each. */
final class FleetTools {

    private FleetTools() {
    }

    /** The tool's path on PATH (or /usr/sbin, /sbin), or null. */
    static Path find(String tool) {
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin" + File.pathSeparator
                + "/sbin" + File.pathSeparator + "/usr/bin";
        for (String d : path.split(File.pathSeparator)) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Why {@code baseline} cannot run here (a missing tool and the package to install), or null. */
    static String missingFor(String baseline) {
        return switch (baseline) {
            case "aria2-flat" -> missing("aria2c", "aria2");
            case "aria2-swarm" -> {
                String m = missing("aria2c", "aria2");
                if (m == null) {
                    m = missing("mktorrent", "mktorrent");
                }
                if (m == null) {
                    m = missing("opentracker", "opentracker");
                }
                yield m;
            }
            default -> null;
        };
    }

    static String missing(String tool, String debianPackage) {
        return find(tool) != null ? null : tool + " is not installed: apt-get install -y " + debianPackage;
    }
}
