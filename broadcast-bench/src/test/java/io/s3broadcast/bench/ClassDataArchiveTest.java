package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The archive's life against a real JVM: made once, reused, made again when rejected, none when it cannot be made. */
class ClassDataArchiveTest {

    private static final List<String> FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m");
    private static final List<String> TRAINING = List.of(Hello.class.getName());

    @TempDir
    Path tmp;

    private Path jar;
    private Path cache;
    private final List<List<String>> trainings = new ArrayList<>();

    /** Loads a few classes and exits: the training run of these tests. */
    public static final class Hello {
        public static void main(String[] args) {
            System.out.println(new java.util.TreeMap<>(java.util.Map.of("hello", 1)));
        }
    }

    @BeforeEach
    void jarWithHello() throws IOException {
        jar = tmp.resolve("hello.jar");
        String entry = Hello.class.getName().replace('.', '/') + ".class";
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
                InputStream in = Hello.class.getClassLoader().getResourceAsStream(entry)) {
            j.putNextEntry(new JarEntry(entry));
            in.transferTo(j);
            j.closeEntry();
        }
        cache = tmp.resolve("cache");
    }

    private ClassDataArchive archive(Path classPath) {
        ClassDataArchive.Runner real = ClassDataArchive.processes();
        return new ClassDataArchive(cache, NodeJvm.java(), classPath.toString(), FLAGS, (command, log) -> {
            if (command.stream().anyMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit="))) {
                trainings.add(command);
            }
            return real.run(command, log);
        });
    }

    @Test
    void madeOnceByATrainingRunThenReusedByTheNextBench() throws Exception {
        ClassDataArchive first = archive(jar);
        List<String> flags = first.flags(TRAINING);

        assertThat(flags).containsExactly("-XX:SharedArchiveFile=" + first.file(), "-Xshare:auto");
        assertThat(first.file()).isNotEmptyFile();
        assertThat(trainings).hasSize(1);
        assertThat(first.flags(TRAINING)).isSameAs(flags);

        List<String> again = archive(jar).flags(TRAINING);
        assertThat(again).isEqualTo(flags);
        assertThat(trainings).hasSize(1);
        try (var files = Files.list(cache)) {
            assertThat(files.filter(f -> f.toString().endsWith(".tmp"))).isEmpty();
        }
    }

    @Test
    void anArchiveTheJvmRejectsIsMadeAgain() throws Exception {
        ClassDataArchive archive = archive(jar);
        Files.createDirectories(cache);
        Files.write(archive.file(), new byte[4096]);

        List<String> flags = archive.flags(TRAINING);

        assertThat(flags).containsExactly("-XX:SharedArchiveFile=" + archive.file(), "-Xshare:auto");
        assertThat(trainings).hasSize(1);
        assertThat(Files.size(archive.file())).isGreaterThan(4096);
    }

    @Test
    void noFlagsWhenTheTrainingRunCannotDumpAnArchive() throws Exception {
        // The class loaded from a directory: the JVM runs it, but will not dump an archive for such a class path.
        String entry = Hello.class.getName().replace('.', '/') + ".class";
        Path classes = tmp.resolve("classes");
        Path file = classes.resolve(entry);
        Files.createDirectories(file.getParent());
        try (InputStream in = Hello.class.getClassLoader().getResourceAsStream(entry)) {
            Files.copy(in, file);
        }
        ClassDataArchive archive = archive(classes);

        assertThat(archive.flags(TRAINING)).isEmpty();
        assertThat(trainings).hasSize(1);
        assertThat(archive.file()).doesNotExist();
    }

    @Test
    void noFlagsWhenTheTrainingRunFails() throws Exception {
        ClassDataArchive archive = archive(jar);

        assertThat(archive.flags(List.of("NoSuchMainClass"))).isEmpty();
        assertThat(archive.file()).doesNotExist();
    }

    @Test
    void anotherJarOrJvmFlagsGetAnotherArchive() throws Exception {
        Path before = archive(jar).file();
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
        Path touched = archive(jar).file();
        Path otherFlags = new ClassDataArchive(cache, NodeJvm.java(), jar.toString(), List.of("-Xmx32m"),
                ClassDataArchive.processes()).file();

        assertThat(touched).isNotEqualTo(before);
        assertThat(otherFlags).isNotEqualTo(touched);
        assertThat(before.getParent()).isEqualTo(cache);
    }
}
