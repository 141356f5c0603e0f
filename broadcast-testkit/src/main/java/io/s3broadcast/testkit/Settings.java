package io.s3broadcast.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/** Reading configuration (system property first, then environment) and small file chores. */
final class Settings {

  /** Directory for server logs; default {@code target/s3broadcast-logs} when run from a module. */
  static final String LOG_DIR = "s3broadcast.test.logDir";

  private Settings() {}

  static Optional<String> get(String property, String envVariable) {
    String value = System.getProperty(property);
    if (value == null || value.isBlank()) {
      value = envVariable == null ? null : System.getenv(envVariable);
    }
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  static Duration seconds(String property, String envVariable, long defaultSeconds) {
    return Duration.ofSeconds(
        get(property, envVariable).map(Long::parseLong).orElse(defaultSeconds));
  }

  static Path logDir() {
    Path dir =
        get(LOG_DIR, "S3BROADCAST_TEST_LOG_DIR")
            .map(Path::of)
            .orElseGet(
                () ->
                    Files.isDirectory(Path.of("target"))
                        ? Path.of("target", "s3broadcast-logs")
                        : Path.of(System.getProperty("java.io.tmpdir"), "s3broadcast-logs"));
    try {
      return Files.createDirectories(dir.toAbsolutePath());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create log directory " + dir, e);
    }
  }

  /** The last {@code lines} lines of a text file, or a note saying why there are none. */
  static String tail(Path file, int lines) {
    if (file == null || !Files.exists(file)) {
      return "(no log at " + file + ")";
    }
    Deque<String> last = new ArrayDeque<>(lines);
    try (var reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        if (last.size() == lines) {
          last.removeFirst();
        }
        last.addLast(line);
      }
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
    return "---- last " + last.size() + " lines of " + file + " ----\n" + String.join("\n", last);
  }

  static void deleteRecursively(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              Files.deleteIfExists(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + root, e);
    }
  }

  /** Registers {@code action} to run at JVM exit; the returned hook can be removed with {@link #removeHook}. */
  static Thread addShutdownHook(String name, Runnable action) {
    Thread hook = new Thread(action, name);
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  static void removeHook(Thread hook) {
    if (hook == null || Thread.currentThread() == hook) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook runs (or ran) anyway.
    }
  }
}
