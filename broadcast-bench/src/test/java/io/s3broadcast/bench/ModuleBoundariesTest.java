package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Core's {@code io.s3broadcast.internal} packages are its own: the main code of every other module reaches core
 * through its API and SPI packages only (no import, no fully qualified use, no class placed in an internal package).
 * Scans the source trees of the sibling modules; it runs here because this module sits above all of them.
 */
class ModuleBoundariesTest {

    private static final List<String> MODULES = List.of("broadcast-p2p", "broadcast-s3", "broadcast-zookeeper",
            "broadcast-bench", "broadcast-testkit", "broadcast-testkit-time");
    private static final Pattern INTERNAL = Pattern.compile("\\bio\\.s3broadcast\\.internal\\b");

    @Test
    void noMainCodeOutsideCoreUsesCoreInternals() throws IOException {
        Path root = repositoryRoot();
        List<String> offenders = new ArrayList<>();
        int scanned = 0;
        for (String module : MODULES) {
            Path sources = root.resolve(module).resolve("src/main/java");
            assertThat(sources).as("source tree of %s", module).isDirectory();
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    scanned++;
                    List<String> lines = Files.readAllLines(f);
                    for (int i = 0; i < lines.size(); i++) {
                        if (INTERNAL.matcher(lines.get(i)).find()) {
                            offenders.add(root.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).strip());
                        }
                    }
                }
            }
        }
        assertThat(scanned).as("Java files scanned").isGreaterThan(100);
        assertThat(offenders).as("main code outside broadcast-core naming io.s3broadcast.internal").isEmpty();
    }

    /** The directory above this module that holds {@code broadcast-core} (the tests run in the module's directory). */
    private static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("broadcast-core/src/main/java"))) {
                return p;
            }
        }
        throw new UncheckedIOException(new IOException("no broadcast-core beside " + Path.of("").toAbsolutePath()));
    }
}
