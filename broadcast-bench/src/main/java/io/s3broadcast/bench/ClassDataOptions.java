package io.s3broadcast.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --cds-dir} and {@code --no-cds}: the node JVMs' class-data archive ({@link ClassDataArchive}). */
final class ClassDataOptions {

    @Option(names = "--cds-dir", paramLabel = "DIR",
            description = "Where the node JVMs' class-data archive is kept (made once by an untimed training run,"
                    + " reused while the jar and the JVM stay the same; default: ~/.cache/s3broadcast/cds).")
    Path dir;

    @Option(names = "--no-cds", negatable = false,
            description = "Start the node JVMs without the class-data archive of the bench's classes.")
    boolean off;

    /** The archive's cache directory, or null when the node JVMs run without one. */
    Path cacheDir() {
        return off ? null : dir != null ? dir : ClassDataArchive.defaultCacheDir();
    }
}
