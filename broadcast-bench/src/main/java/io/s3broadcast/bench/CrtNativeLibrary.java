package io.s3broadcast.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CRT's JNI library, extracted once for the node JVMs. CRT first tries {@code System.loadLibrary("aws-crt-jni")} and
 * only when that fails extracts its 6 MB library from the jar into a new temporary file, in every JVM. A node JVM
 * whose {@code java.library.path} holds the library loads it in place: measured on this machine, loading CRT took
 * 18 ms and 0.06 CPU-s instead of 89 ms and 0.14 (docs/bench.md, "Node JVMs").
 *
 * <p>The library goes into a directory named after its content, written once by an atomic rename, as the compiler
 * directives file is: concurrent benches and other CRT versions share or keep their own.
 */
final class CrtNativeLibrary {

    private static final Logger LOG = LoggerFactory.getLogger(CrtNativeLibrary.class);

    static final String PREFIX = "s3broadcast-crt-";

    /** Writes the library for this platform into the file given (which exists, empty: CRT's extractor wants it so). */
    interface Extractor {
        void extract(File to) throws Exception;
    }

    private CrtNativeLibrary() {
    }

    /**
     * {@code -Djava.library.path=} the library's directory, then the JVM's own path; empty when CRT is not on the
     * class path or cannot extract its library for this platform (node JVMs then extract it themselves).
     */
    static List<String> flags(Path tmp) {
        try {
            Class.forName("software.amazon.awssdk.crt.internal.ExtractLib", false, CrtNativeLibrary.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return List.of();
        }
        try {
            Path dir = directory(tmp, to -> software.amazon.awssdk.crt.internal.ExtractLib.extractLibrary(to));
            return List.of("-Djava.library.path=" + dir + File.pathSeparator + System.getProperty("java.library.path"));
        } catch (Exception | LinkageError e) {
            LOG.warn("cannot extract CRT's native library for the node JVMs ({}); each extracts its own", e.toString());
            return List.of();
        }
    }

    /** The directory in {@code tmp} holding the library {@code extractor} writes, named after its content. */
    static Path directory(Path tmp, Extractor extractor) throws Exception {
        String fileName = System.mapLibraryName("aws-crt-jni");
        Path work = Files.createTempDirectory(tmp, PREFIX + "new-");
        try {
            Path file = Files.createFile(work.resolve(fileName));
            extractor.extract(file.toFile());
            Path dir = tmp.resolve(PREFIX + Sha256.of(file).substring(0, 16));
            if (Files.isRegularFile(dir.resolve(fileName))) {
                return dir;
            }
            try {
                Files.move(work, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                // Fine when another bench made it meanwhile (a directory that is not empty cannot be replaced).
                if (!Files.isRegularFile(dir.resolve(fileName))) {
                    throw e;
                }
            }
            return dir;
        } finally {
            FleetFiles.deleteTree(work);
        }
    }

    /** For tests: whether {@code flags} name a library directory. */
    static Optional<Path> directoryOf(List<String> flags) {
        return flags.stream().filter(f -> f.startsWith("-Djava.library.path=")).findFirst()
                .map(f -> Path.of(f.substring("-Djava.library.path=".length()).split(File.pathSeparator)[0]));
    }
}
