package io.s3broadcast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** File chores of the fleet. */
final class FleetFiles {

    private FleetFiles() {
    }

    static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Deletes the files of more than 1 MiB below {@code dir} (the nodes' copies of the object), keeping the logs. */
    static void deleteLargeFiles(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.filter(Files::isRegularFile).toList()) {
                if (Files.size(p) > (1L << 20)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
