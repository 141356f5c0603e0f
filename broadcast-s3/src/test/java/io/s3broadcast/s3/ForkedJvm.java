package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a main class of the test classpath in a JVM of its own, e.g. with a small heap. */
final class ForkedJvm {

    private ForkedJvm() {
    }

    /**
     * Runs {@code main} with {@code args} under {@code -Xmx<heap>}, waits up to {@code timeout}, asserts it
     * exited with 0, and returns what it printed (also kept in {@code dir/child.log}).
     */
    static String run(Path dir, String heap, Class<?> main, List<String> args, Duration timeout) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap,
                "-XX:+ExitOnOutOfMemoryError",
                "-cp", System.getProperty("java.class.path"),
                main.getName()));
        cmd.addAll(args);
        Path log = dir.resolve("child.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean exited = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!exited) {
            p.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(exited).as("child finished in time; output:%n%s", output).isTrue();
        assertThat(p.exitValue()).as("child exit code; output:%n%s", output).isZero();
        return output;
    }
}
