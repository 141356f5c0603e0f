package io.s3broadcast.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/** JDKs on this machine besides the one running the tests: this one, then those under {@code /usr/lib/jvm}. */
final class Jdks {

    private static final Path INSTALLED = Path.of("/usr/lib/jvm");

    private Jdks() {
    }

    /** The {@code java} of a JDK of feature release {@code feature} or later, if one is here. */
    static Optional<String> javaOf(int feature) {
        if (Runtime.version().feature() >= feature) {
            return Optional.of(NodeJvm.java());
        }
        if (!Files.isDirectory(INSTALLED)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(INSTALLED)) {
            return homes.filter(home -> feature(home) >= feature)
                    .sorted(Comparator.comparing(Path::toString))
                    .map(home -> home.resolve("bin").resolve("java"))
                    .filter(Files::isExecutable)
                    .map(Path::toString)
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The feature release in a JDK's {@code release} file ({@code JAVA_VERSION="25.0.3"}), 0 when there is none. */
    private static int feature(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release)) {
            return 0;
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(release)) {
            p.load(in);
        } catch (IOException e) {
            return 0;
        }
        String version = p.getProperty("JAVA_VERSION", "").replace("\"", "");
        try {
            return Integer.parseInt(version.split("[.+-]")[0]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
