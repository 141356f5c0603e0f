package io.s3broadcast.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * The kind of class-data archive a node JVM gets ({@link ClassDataArchive}): how a training run makes it, how a
 * node JVM uses it, and how the JVM is asked whether it accepts it.
 *
 * <p>{@link #DYNAMIC_CDS} (JDK 13 on): the classes a run loaded, parsed and verified, mapped by the next run.
 * {@link #AOT_CACHE} (JDK 25 on, JEP 483, 514 and 515): those classes also linked, the lambdas' and string
 * concatenations' call sites resolved, and the methods' profiles the training run gathered, so the JIT starts from
 * them. Measured in docs/bench.md ("Node JVMs on JDK 25"): a node JVM's CPU and a first fetch's time drop by a
 * fifth to a third against the dynamic archive on the same JDK.
 */
enum ArchiveFormat {

    DYNAMIC_CDS(".jsa") {
        @Override
        List<String> trainFlags(Path out) {
            return List.of("-XX:ArchiveClassesAtExit=" + out);
        }

        /** {@code -Xshare:auto}: should the file go bad after the check, the JVM starts without it rather than failing. */
        @Override
        List<String> useFlags(Path file) {
            return List.of("-XX:SharedArchiveFile=" + file, "-Xshare:auto");
        }

        @Override
        List<String> checkFlags(Path file) {
            return List.of("-Xshare:on", "-XX:SharedArchiveFile=" + file);
        }
    },

    AOT_CACHE(".aot") {
        /** One step (JEP 514): the training run records, then a JVM of its own assembles the cache at exit. */
        @Override
        List<String> trainFlags(Path out) {
            return List.of("-XX:AOTCacheOutput=" + out);
        }

        /** {@code -XX:AOTMode=auto}: a cache the JVM cannot use is left out, with a warning, rather than failing. */
        @Override
        List<String> useFlags(Path file) {
            return List.of("-XX:AOTCache=" + file, "-XX:AOTMode=auto");
        }

        @Override
        List<String> checkFlags(Path file) {
            return List.of("-XX:AOTMode=on", "-XX:AOTCache=" + file);
        }
    };

    /** The first JDK whose {@code java} makes an AOT cache in one step ({@code -XX:AOTCacheOutput}). */
    static final int AOT_CACHE_SINCE = 25;

    private final String extension;

    ArchiveFormat(String extension) {
        this.extension = extension;
    }

    /** The best format a JVM of this feature release ({@code Runtime.version().feature()}) can make. */
    static ArchiveFormat forFeature(int feature) {
        return feature >= AOT_CACHE_SINCE ? AOT_CACHE : DYNAMIC_CDS;
    }

    /** The format for node JVMs that run this JVM's {@code java} ({@link NodeJvm#java()}). */
    static ArchiveFormat forThisJvm() {
        return forFeature(Runtime.version().feature());
    }

    /** The archive file's extension, with its dot. */
    String extension() {
        return extension;
    }

    /** The flags of a training run that writes the archive to {@code out} when it exits. */
    abstract List<String> trainFlags(Path out);

    /** The flags that make a node JVM use the archive {@code file}. */
    abstract List<String> useFlags(Path file);

    /** The flags that make a JVM fail to start unless it can use the archive {@code file}. */
    abstract List<String> checkFlags(Path file);
}
