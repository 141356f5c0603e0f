package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** CRT's native library, extracted once for the node JVMs, which then load it without extracting it. */
class CrtNativeLibraryTest {

    @TempDir
    Path tmp;

    @Test
    void theLibraryGoesIntoADirectoryNamedAfterItsContentAndIsKeptThere() throws Exception {
        String name = System.mapLibraryName("aws-crt-jni");
        Path dir = CrtNativeLibrary.directory(tmp, to -> Files.writeString(to.toPath(), "one"));
        assertThat(dir.getFileName().toString()).startsWith(CrtNativeLibrary.PREFIX);
        assertThat(Files.readString(dir.resolve(name))).isEqualTo("one");
        long modified = Files.getLastModifiedTime(dir.resolve(name)).toMillis();

        assertThat(CrtNativeLibrary.directory(tmp, to -> Files.writeString(to.toPath(), "one"))).isEqualTo(dir);
        assertThat(Files.getLastModifiedTime(dir.resolve(name)).toMillis()).isEqualTo(modified);
        Path other = CrtNativeLibrary.directory(tmp, to -> Files.writeString(to.toPath(), "two"));
        assertThat(other).isNotEqualTo(dir);
        try (var files = Files.list(tmp)) {
            assertThat(files).containsExactlyInAnyOrder(dir, other);
        }
    }

    @Test
    void aFailedExtractionLeavesNothingBehind() {
        assertThatThrownBy(() -> CrtNativeLibrary.directory(tmp, to -> {
            Files.writeString(to.toPath(), "half");
            throw new IOException("no library for this platform");
        })).hasMessageContaining("no library for this platform");
        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aNodeJvmLoadsTheExtractedLibraryWithoutExtractingItsOwn() throws Exception {
        List<String> flags = CrtNativeLibrary.flags(tmp);
        assertThat(CrtNativeLibrary.directoryOf(flags)).hasValueSatisfying(d -> assertThat(d).startsWith(tmp));
        List<String> command = new ArrayList<>(List.of(NodeJvm.java()));
        command.addAll(flags);
        command.addAll(List.of("-cp", NodeJvm.classPath(), CrtLoads.class.getName()));
        Path out = tmp.resolve("out");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(out, StandardCharsets.UTF_8)).isZero();
        assertThat(Files.readString(out, StandardCharsets.UTF_8).strip())
                .isEqualTo(CrtNativeLibrary.directoryOf(flags).orElseThrow()
                        .resolve(System.mapLibraryName("aws-crt-jni")).toString());
    }

    /** Loads CRT in a JVM of its own and prints the file its library was mapped from. */
    static final class CrtLoads {
        public static void main(String[] args) throws IOException {
            software.amazon.awssdk.crt.CRT.checkLoaded();
            try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
                lines.filter(l -> l.contains(System.mapLibraryName("aws-crt-jni")))
                        .map(l -> l.substring(l.indexOf('/'))).distinct().forEach(System.out::println);
            }
        }
    }
}
