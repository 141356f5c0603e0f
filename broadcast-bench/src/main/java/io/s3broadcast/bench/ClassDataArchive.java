package io.s3broadcast.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An application class-data sharing (AppCDS) archive of the classes a node JVM loads, so the node JVMs a bench
 * command launches map them from one file instead of loading, verifying and linking them each time (docs/bench.md,
 * "Node JVMs"): a dynamic archive, or on JDK 25 and later an AOT cache ({@link ArchiveFormat}). The archive lives in
 * a cache directory under a name made from the JVM's build and the class path's files (path, size, modification
 * time): made once by a training run of the JVM, reused by every later run, made again when the jar or the JVM
 * changes.
 *
 * <p>Before flags are handed out, the JVM is asked to start with the archive required (once per
 * instance): if it refuses (an archive of another build, a damaged file), the archive is deleted and made once
 * more; if that fails too, or the training run cannot dump one (a class path with directories), the node JVMs
 * run without one ({@link #flags} is empty) and the reason is logged.
 */
final class ClassDataArchive {

    private static final Logger LOG = LoggerFactory.getLogger(ClassDataArchive.class);

    /**
     * Runs commands side by side to their end and returns the first one's exit code. The first one's output goes to
     * {@code log}, the others' to {@code log} with {@code .2}, {@code .3}, ... appended: a training run and the
     * peers it exchanges pieces with (they share one environment, so one group secret). The others get
     * {@link #PARTNER_WAIT} after the first ends, then are stopped.
     */
    interface Runner {
        int run(List<List<String>> commands, Path log) throws IOException, InterruptedException;
    }

    /** How long a training run's partners may go on after it ended before they are stopped. */
    static final Duration PARTNER_WAIT = Duration.ofSeconds(60);

    /**
     * Archives kept in the cache directory: the ones used last. Each build of the bench or JVM gets an archive of its
     * own (tens of MB), so without a bound they pile up; one that is used again is simply made again.
     */
    static final int KEEP = 4;

    /** An archive's file name (its logs are the name with a suffix). */
    private static final Pattern ARCHIVE = Pattern.compile("node-[0-9a-f]{16}\\.(aot|jsa)");

    private final Path cacheDir;
    private final String java;
    private final String classPath;
    private final List<String> jvmFlags;
    private final Runner runner;
    private final ArchiveFormat format;
    private List<String> flags;

    /**
     * @param cacheDir where archives are kept (created when needed)
     * @param java the {@code java} executable of the node JVMs
     * @param classPath their class path
     * @param jvmFlags their other flags (heap, GC, JIT), used for the training run too
     * @param runner runs the training and probe commands
     * @param format the kind of archive, one {@code java} can make ({@link ArchiveFormat#forFeature})
     */
    ClassDataArchive(Path cacheDir, String java, String classPath, List<String> jvmFlags, Runner runner,
            ArchiveFormat format) {
        this.format = format;
        this.cacheDir = cacheDir;
        this.java = java;
        this.classPath = classPath;
        this.jvmFlags = List.copyOf(jvmFlags);
        this.runner = runner;
    }

    /** The default cache directory: {@code $XDG_CACHE_HOME/s3broadcast/cds}, else {@code ~/.cache/s3broadcast/cds}. */
    static Path defaultCacheDir() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("s3broadcast").resolve("cds");
    }

    /** Runs commands as processes, output to the log files. */
    static Runner processes() {
        return processes(env -> { });
    }

    /** Runs commands as processes whose environment {@code env} completes (the same for all), output to the logs. */
    static Runner processes(Consumer<Map<String, String>> env) {
        return (commands, log) -> {
            List<Process> started = new ArrayList<>();
            try {
                for (int i = 0; i < commands.size(); i++) {
                    Path out = i == 0 ? log : log.resolveSibling(log.getFileName() + "." + (i + 1));
                    ProcessBuilder pb = new ProcessBuilder(commands.get(i)).redirectErrorStream(true)
                            .redirectOutput(out.toFile());
                    env.accept(pb.environment());
                    started.add(pb.start());
                }
                int exit = started.get(0).waitFor();
                for (Process partner : started.subList(1, started.size())) {
                    partner.waitFor(PARTNER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                }
                return exit;
            } finally {
                started.forEach(Process::destroyForcibly);
            }
        };
    }

    /** The archive's file: one per JVM build and class path content. */
    Path file() {
        return cacheDir.resolve("node-" + key() + format.extension());
    }

    /**
     * The flags that make a node JVM use the archive, making it first with {@code training} when there is none;
     * empty when there is no usable archive. Made and checked once per instance. {@code training}: the arguments
     * after the class path (main class and its arguments) of the training run, a run that loads and runs what a
     * node does, then of the runs beside it (its peers, JVMs with the same flags that dump nothing).
     */
    synchronized List<String> flags(List<List<String>> training) throws InterruptedException {
        if (flags == null) {
            flags = prepare(training);
        }
        return flags;
    }

    private List<String> prepare(List<List<String>> training) throws InterruptedException {
        Path file = file();
        try {
            Files.createDirectories(cacheDir);
            if (Files.exists(file)) {
                if (accepted(file)) {
                    LOG.info("node JVMs use the class-data archive {}", file);
                    Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
                    return format.useFlags(file);
                }
                LOG.warn("the JVM rejects the class-data archive {}; making it again", file);
                Files.deleteIfExists(file);
            }
            if (!train(file, training)) {
                return List.of();
            }
            if (accepted(file)) {
                LOG.info("made the class-data archive {} for the node JVMs", file);
                prune(file);
                return format.useFlags(file);
            }
            LOG.warn("the JVM rejects the class-data archive it just made ({}); node JVMs run without one", file);
            Files.deleteIfExists(file);
            return List.of();
        } catch (IOException e) {
            LOG.warn("no class-data archive for the node JVMs ({}): {}", file, e.toString());
            return List.of();
        }
    }

    /** A training run that dumps the archive at exit; true when the archive is in place. */
    private boolean train(Path file, List<List<String>> training) throws IOException, InterruptedException {
        Path tmp = cacheDir.resolve(file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        Path log = cacheDir.resolve(file.getFileName() + ".training.log");
        Files.deleteIfExists(tmp);
        List<List<String>> commands = new ArrayList<>();
        for (int i = 0; i < training.size(); i++) {
            List<String> command = new ArrayList<>();
            command.add(java);
            command.addAll(jvmFlags);
            if (i == 0) {
                command.addAll(format.trainFlags(tmp));
            }
            command.addAll(List.of("-cp", classPath));
            command.addAll(training.get(i));
            commands.add(command);
        }
        LOG.info("making a class-data archive for the node JVMs: one untimed training run{} ({})",
                training.size() > 1 ? " with " + (training.size() - 1) + " peer(s)" : "", log);
        int exit = runner.run(commands, log);
        try {
            if (exit != 0 || !Files.exists(tmp) || Files.size(tmp) == 0) {
                LOG.warn("the training run for the class-data archive {} (exit {}); node JVMs run without one: see {}",
                        Files.exists(tmp) ? "failed" : "dumped no archive", exit, log);
                return false;
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            return true;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Deletes the archives of the cache directory beyond the {@link #KEEP} used last (a use sets a file's
     * modification time), with their logs; never {@code made}. Best effort: what cannot be listed or deleted stays.
     */
    private void prune(Path made) {
        List<Path> files;
        Map<Path, FileTime> used = new HashMap<>();
        try (Stream<Path> list = Files.list(cacheDir)) {
            files = list.toList();
            for (Path f : files) {
                if (ARCHIVE.matcher(f.getFileName().toString()).matches()) {
                    used.put(f, Files.getLastModifiedTime(f));
                }
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.debug("cannot list the class-data archives in {}: {}", cacheDir, e.toString());
            return;
        }
        List<Path> archives = new ArrayList<>(used.keySet());
        archives.sort(Comparator.comparing((Path a) -> a.equals(made)).thenComparing(used::get).reversed());
        for (Path old : archives.subList(Math.min(KEEP, archives.size()), archives.size())) {
            String name = old.getFileName().toString();
            try {
                for (Path f : files) {
                    if (f.getFileName().toString().startsWith(name)) {
                        Files.deleteIfExists(f);
                    }
                }
                LOG.info("deleted the class-data archive {}, not used lately (the {} used last are kept)", old, KEEP);
            } catch (IOException e) {
                LOG.debug("cannot delete the class-data archive {}: {}", old, e.toString());
            }
        }
    }

    /** Whether the JVM starts with the archive required (it fails to start when it cannot use it). */
    private boolean accepted(Path file) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmFlags);
        command.addAll(format.checkFlags(file));
        command.addAll(List.of("-cp", classPath, "-version"));
        return runner.run(List.of(command), cacheDir.resolve(file.getFileName() + ".check.log")) == 0;
    }

    /** SHA-256 over the JVM's identity and every class path entry's path, size and modification time. */
    String key() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            StringBuilder id = new StringBuilder(java).append('\n');
            for (String p : List.of("java.vm.version", "java.vm.vendor", "java.home")) {
                id.append(System.getProperty(p, "")).append('\n');
            }
            id.append(String.join(" ", jvmFlags)).append('\n');
            for (String entry : classPath.split(File.pathSeparator)) {
                Path p = Path.of(entry);
                id.append(entry);
                try {
                    id.append(' ').append(Files.size(p)).append(' ').append(Files.getLastModifiedTime(p).toMillis());
                } catch (IOException e) {
                    id.append(" missing");
                }
                id.append('\n');
            }
            return HexFormat.of().formatHex(md.digest(id.toString().getBytes(StandardCharsets.UTF_8)), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
