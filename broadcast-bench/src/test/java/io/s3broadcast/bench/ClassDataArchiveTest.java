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
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The archive's life against a real JVM: made once, reused, made again when rejected, none when it cannot be made;
 * in each format a JVM here can make: the dynamic archive with this JVM, the AOT cache with a JDK 25 or later when
 * this JVM is one or one is installed beside it ({@link Jdks}).
 */
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

    /** Each format with a {@code java} that makes it; the AOT cache only where a JDK 25 or later is found. */
    static Stream<Arguments> formats() {
        Stream.Builder<Arguments> formats = Stream.builder();
        formats.add(Arguments.of(ArchiveFormat.DYNAMIC_CDS, NodeJvm.java()));
        Jdks.javaOf(ArchiveFormat.AOT_CACHE_SINCE).ifPresent(java -> formats.add(Arguments.of(ArchiveFormat.AOT_CACHE, java)));
        return formats.build();
    }

    private ClassDataArchive archive(Path classPath, ArchiveFormat format, String java) {
        ClassDataArchive.Runner real = ClassDataArchive.processes();
        Path marker = Path.of("marker");
        String training = format.trainFlags(marker).get(0).replace(marker.toString(), "");
        return new ClassDataArchive(cache, java, classPath.toString(), FLAGS, (commands, log) -> {
            if (commands.get(0).stream().anyMatch(a -> a.startsWith(training))) {
                trainings.add(commands.get(0));
            }
            return real.run(commands, log);
        }, format);
    }

    @ParameterizedTest
    @MethodSource("formats")
    void madeOnceByATrainingRunThenReusedByTheNextBench(ArchiveFormat format, String java) throws Exception {
        ClassDataArchive first = archive(jar, format, java);
        List<String> flags = first.flags(List.of(TRAINING));

        assertThat(flags).isEqualTo(format.useFlags(first.file()));
        assertThat(first.file().toString()).endsWith(format.extension());
        assertThat(first.file()).isNotEmptyFile();
        assertThat(trainings).hasSize(1);
        assertThat(first.flags(List.of(TRAINING))).isSameAs(flags);

        List<String> again = archive(jar, format, java).flags(List.of(TRAINING));
        assertThat(again).isEqualTo(flags);
        assertThat(trainings).hasSize(1);
        try (var files = Files.list(cache)) {
            assertThat(files.filter(f -> f.toString().endsWith(".tmp"))).isEmpty();
        }
    }

    @Test
    void makingAnArchiveKeepsOnlyTheOnesUsedLast() throws Exception {
        Files.createDirectories(cache);
        List<Path> old = new ArrayList<>();
        for (int i = 0; i < ClassDataArchive.KEEP + 1; i++) {
            Path a = cache.resolve(String.format("node-%016x.aot", i));
            Files.write(a, new byte[] {1});
            Files.writeString(cache.resolve(a.getFileName() + ".training.log"), "log");
            Files.setLastModifiedTime(a, FileTime.fromMillis(1_000_000L * (i + 1)));
            old.add(a);
        }
        Path unrelated = Files.writeString(cache.resolve("notes.txt"), "mine");

        ClassDataArchive archive = archive(jar, ArchiveFormat.DYNAMIC_CDS, NodeJvm.java());
        archive.flags(List.of(TRAINING));

        // The new archive and the KEEP - 1 used last stay; the others go, with their logs.
        assertThat(archive.file()).exists();
        int gone = old.size() - (ClassDataArchive.KEEP - 1);
        for (int i = 0; i < old.size(); i++) {
            Path log = cache.resolve(old.get(i).getFileName() + ".training.log");
            if (i < gone) {
                assertThat(old.get(i)).doesNotExist();
                assertThat(log).doesNotExist();
            } else {
                assertThat(old.get(i)).exists();
                assertThat(log).exists();
            }
        }
        assertThat(unrelated).exists();
    }

    @Test
    void theTrainingRunsWithItsPeersBesideItAndOnlyItDumpsTheArchive() throws Exception {
        ArchiveFormat format = ArchiveFormat.DYNAMIC_CDS;
        ClassDataArchive.Runner real = ClassDataArchive.processes();
        List<List<List<String>>> calls = new ArrayList<>();
        ClassDataArchive archive = new ClassDataArchive(cache, NodeJvm.java(), jar.toString(), FLAGS,
                (commands, log) -> {
                    calls.add(commands);
                    return real.run(commands, log);
                }, format);

        List<String> flags = archive.flags(List.of(TRAINING, TRAINING));

        assertThat(flags).isEqualTo(format.useFlags(archive.file()));
        List<List<String>> training = calls.get(0);
        assertThat(training).hasSize(2);
        Path marker = Path.of("marker");
        String dump = format.trainFlags(marker).get(0).replace(marker.toString(), "");
        assertThat(training.get(0)).containsAll(FLAGS).anyMatch(a -> a.startsWith(dump));
        assertThat(training.get(1)).containsAll(FLAGS).noneMatch(a -> a.startsWith(dump))
                .endsWith(TRAINING.toArray(String[]::new));
        Path peerLog = cache.resolve(archive.file().getFileName() + ".training.log.2");
        assertThat(Files.readString(peerLog)).contains("{hello=1}");
    }

    @ParameterizedTest
    @MethodSource("formats")
    void anArchiveTheJvmRejectsIsMadeAgain(ArchiveFormat format, String java) throws Exception {
        ClassDataArchive archive = archive(jar, format, java);
        Files.createDirectories(cache);
        Files.write(archive.file(), new byte[4096]);

        List<String> flags = archive.flags(List.of(TRAINING));

        assertThat(flags).isEqualTo(format.useFlags(archive.file()));
        assertThat(trainings).hasSize(1);
        assertThat(Files.size(archive.file())).isGreaterThan(4096);
    }

    @ParameterizedTest
    @MethodSource("formats")
    void noFlagsWhenTheTrainingRunCannotDumpAnArchive(ArchiveFormat format, String java) throws Exception {
        // The class loaded from a directory: the JVM runs it, but will not dump an archive for such a class path.
        String entry = Hello.class.getName().replace('.', '/') + ".class";
        Path classes = tmp.resolve("classes");
        Path file = classes.resolve(entry);
        Files.createDirectories(file.getParent());
        try (InputStream in = Hello.class.getClassLoader().getResourceAsStream(entry)) {
            Files.copy(in, file);
        }
        ClassDataArchive archive = archive(classes, format, java);

        assertThat(archive.flags(List.of(TRAINING))).isEmpty();
        assertThat(trainings).hasSize(1);
        assertThat(archive.file()).doesNotExist();
    }

    @ParameterizedTest
    @MethodSource("formats")
    void noFlagsWhenTheTrainingRunFails(ArchiveFormat format, String java) throws Exception {
        ClassDataArchive archive = archive(jar, format, java);

        assertThat(archive.flags(List.of(List.of("NoSuchMainClass")))).isEmpty();
        assertThat(archive.file()).doesNotExist();
    }

    @Test
    void anotherJarOrJvmFlagsGetAnotherArchive() throws Exception {
        Path before = archive(jar, ArchiveFormat.DYNAMIC_CDS, NodeJvm.java()).file();
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
        Path touched = archive(jar, ArchiveFormat.DYNAMIC_CDS, NodeJvm.java()).file();
        Path otherFlags = new ClassDataArchive(cache, NodeJvm.java(), jar.toString(), List.of("-Xmx32m"),
                ClassDataArchive.processes(), ArchiveFormat.DYNAMIC_CDS).file();

        assertThat(touched).isNotEqualTo(before);
        assertThat(otherFlags).isNotEqualTo(touched);
        assertThat(before.getParent()).isEqualTo(cache);
    }

    @Test
    void aJdkMakesTheBestFormatItCan() {
        assertThat(ArchiveFormat.forFeature(17)).isEqualTo(ArchiveFormat.DYNAMIC_CDS);
        assertThat(ArchiveFormat.forFeature(24)).isEqualTo(ArchiveFormat.DYNAMIC_CDS);
        assertThat(ArchiveFormat.forFeature(25)).isEqualTo(ArchiveFormat.AOT_CACHE);
        assertThat(ArchiveFormat.forFeature(26)).isEqualTo(ArchiveFormat.AOT_CACHE);
    }
}
