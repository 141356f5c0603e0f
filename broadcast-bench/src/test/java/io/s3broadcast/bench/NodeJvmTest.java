package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node JVM's flags: its compiler directives file, and a JVM that starts with them. */
class NodeJvmTest {

    @TempDir
    Path dir;

    @Test
    void theDirectivesFileIsWrittenOnceUnderANameMadeFromItsContent() throws IOException {
        Path file = NodeJvm.directivesFile(dir);
        assertThat(file.getFileName().toString()).startsWith("s3broadcast-node-jit-").endsWith(".json");
        assertThat(Files.readString(file, StandardCharsets.UTF_8)).isEqualTo(NodeJvm.JIT_DIRECTIVES);
        long modified = Files.getLastModifiedTime(file).toMillis();
        assertThat(NodeJvm.directivesFile(dir)).isEqualTo(file);
        assertThat(Files.getLastModifiedTime(file).toMillis()).isEqualTo(modified);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(file);
        }
    }

    @Test
    void aFileWithOtherContentIsReplaced() throws IOException {
        Path file = NodeJvm.directivesFile(dir);
        Files.writeString(file, "[]");
        assertThat(NodeJvm.directivesFile(dir)).isEqualTo(file);
        assertThat(Files.readString(file)).isEqualTo(NodeJvm.JIT_DIRECTIVES);
    }

    @Test
    void aJvmStartsWithTheFlagsAndWritesNothingOfItsOwnToStdout() throws Exception {
        assertThat(NodeJvm.FLAGS).anyMatch(f -> f.startsWith("-XX:CompilerDirectivesFile="));
        List<String> command = new ArrayList<>();
        command.add(NodeJvm.java());
        command.addAll(NodeJvm.FLAGS);
        command.add("-version");
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(err)).isZero();
        assertThat(Files.readString(out)).isEmpty();
        assertThat(Files.readString(err)).contains("compiler directives added");
    }
}
