package io.s3broadcast.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * Real LocalStack (S3 only) run as a host process from a Python 3.13 virtual environment, no Docker.
 *
 * <p>{@link #start()} first runs the bundled {@code localstack-venv.sh}, which creates the venv in a
 * cache directory the first time (a few minutes, needs PyPI) and reuses it afterwards. It then launches
 * {@code python -m localstack.runtime.main} on a free loopback port, polls {@code /_localstack/health}
 * until S3 is up, and writes the process output to {@code target/s3broadcast-logs/}. {@link #close()}
 * and JVM exit kill the process tree.
 *
 * <p>Settings (system property, else environment variable):
 *
 * <ul>
 *   <li>{@code s3broadcast.localstack.venv} / {@code S3BROADCAST_LOCALSTACK_VENV}: venv directory,
 *       default {@code ~/.cache/s3broadcast/localstack-venv}.
 *   <li>{@code s3broadcast.localstack.python} / {@code S3BROADCAST_LOCALSTACK_PYTHON}: the Python 3.13
 *       used to create it, default pyenv's {@code ~/.pyenv/versions/3.13*}, else {@code python3.13}.
 *   <li>{@code s3broadcast.localstack.startTimeoutSeconds} (default 120) and {@code
 *       s3broadcast.localstack.installTimeoutSeconds} (default 900).
 * </ul>
 *
 * <p>Known gap: a multipart upload created without a checksum algorithm but completed with per-part
 * CRC32 values is rejected with 400 InvalidPart.
 */
public final class HostLocalStackServer extends AbstractS3Server {

  public static final String VENV_PROPERTY = "s3broadcast.localstack.venv";
  public static final String PYTHON_PROPERTY = "s3broadcast.localstack.python";

  private static final Logger LOG = LoggerFactory.getLogger(HostLocalStackServer.class);
  private static final String SCRIPT = "localstack-venv.sh";
  private static final Pattern S3_UP = Pattern.compile("\"s3\"\\s*:\\s*\"(available|running)\"");
  private static final int TAIL_LINES = 40;
  private static final int PORT_ATTEMPTS = 3;

  private final Process process;
  private final URI endpoint;
  private final Path dataDir;
  private final Path log;
  private final Thread shutdownHook;

  private HostLocalStackServer(Process process, int port, Path dataDir, Path log) {
    this.process = process;
    this.endpoint = localUri(port);
    this.dataDir = dataDir;
    this.log = log;
    this.shutdownHook = Settings.addShutdownHook("localstack-kill", this::stop);
  }

  /** Installs LocalStack if needed, starts it and waits until S3 answers. */
  public static HostLocalStackServer start() {
    Path logDir = Settings.logDir();
    Path python = installVenv(logDir);
    Duration startTimeout =
        Settings.seconds(
            "s3broadcast.localstack.startTimeoutSeconds", "S3BROADCAST_LOCALSTACK_START_TIMEOUT", 120);
    return start(python, logDir, startTimeout);
  }

  /** Launches {@code python -m localstack.runtime.main} on a free port, retrying on a port clash. */
  static HostLocalStackServer start(Path python, Path logDir, Duration startTimeout) {
    IllegalStateException lastClash = null;
    for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
      int port = FreePorts.loopback(1).get(0);
      Path log = logDir.resolve("localstack-" + port + ".log");
      try {
        return launch(python, port, log, startTimeout);
      } catch (PortClash e) {
        LOG.warn("LocalStack could not bind port {} (attempt {}), retrying", port, attempt);
        lastClash = new IllegalStateException(e.getMessage());
      }
    }
    throw lastClash;
  }

  /** The venv's python, after creating or checking the venv with the bundled script. */
  static Path installVenv(Path logDir) {
    Path venv =
        Settings.get(VENV_PROPERTY, "S3BROADCAST_LOCALSTACK_VENV")
            .map(Path::of)
            .orElse(Path.of(System.getProperty("user.home"), ".cache", "s3broadcast", "localstack-venv"));
    Path installLog = logDir.resolve("localstack-install.log");
    Path stdout = logDir.resolve("localstack-install.out");
    Duration timeout =
        Settings.seconds(
            "s3broadcast.localstack.installTimeoutSeconds",
            "S3BROADCAST_LOCALSTACK_INSTALL_TIMEOUT",
            900);
    long started = System.nanoTime();
    Path script = extractScript(logDir);
    ProcessBuilder builder =
        new ProcessBuilder("bash", script.toString(), venv.toAbsolutePath().toString())
            .redirectOutput(stdout.toFile())
            .redirectError(installLog.toFile());
    Settings.get(PYTHON_PROPERTY, "S3BROADCAST_LOCALSTACK_PYTHON")
        .ifPresent(p -> builder.environment().put("S3BROADCAST_LOCALSTACK_PYTHON", p));
    Process install;
    try {
      install = builder.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + script + " (is bash installed?): " + e, e);
    }
    try {
      if (!install.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        killTree(install);
        throw new IllegalStateException(
            "LocalStack venv install did not finish within "
                + timeout
                + "\n"
                + Settings.tail(installLog, TAIL_LINES));
      }
    } catch (InterruptedException e) {
      killTree(install);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while installing LocalStack", e);
    }
    if (install.exitValue() != 0) {
      throw new IllegalStateException(
          "LocalStack venv install failed (exit "
              + install.exitValue()
              + "); set -Ds3broadcast.test.backends=s3proxy to skip LocalStack\n"
              + Settings.tail(installLog, TAIL_LINES));
    }
    String python;
    try {
      List<String> lines = Files.readAllLines(stdout, StandardCharsets.UTF_8);
      python = lines.isEmpty() ? "" : lines.get(lines.size() - 1).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (python.isEmpty() || !Files.isExecutable(Path.of(python))) {
      throw new IllegalStateException(
          "LocalStack venv script printed no python path\n" + Settings.tail(installLog, TAIL_LINES));
    }
    LOG.info("LocalStack venv ready in {} ms: {}", (System.nanoTime() - started) / 1_000_000, python);
    return Path.of(python);
  }

  private static Path extractScript(Path logDir) {
    try (InputStream in = HostLocalStackServer.class.getResourceAsStream(SCRIPT)) {
      if (in == null) {
        throw new IllegalStateException("resource " + SCRIPT + " missing from the testkit jar");
      }
      Path script = logDir.resolve(SCRIPT);
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
      return script;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract " + SCRIPT, e);
    }
  }

  static HostLocalStackServer launch(Path python, int port, Path log, Duration timeout)
      throws PortClash {
    long started = System.nanoTime();
    Path dataDir;
    try {
      dataDir = Files.createTempDirectory("s3broadcast-localstack-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ProcessBuilder builder =
        new ProcessBuilder(python.toString(), "-m", "localstack.runtime.main")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    env.put("SERVICES", "s3");
    env.put("GATEWAY_LISTEN", "127.0.0.1:" + port);
    env.put("OVERRIDE_IN_DOCKER", "0");
    env.put("FILESYSTEM_ROOT", dataDir.toString());
    env.put("SKIP_SSL_CERT_DOWNLOAD", "1");
    env.put("DNS_ADDRESS", "0");
    env.put("DISABLE_EVENTS", "1");
    env.put("PYTHONUNBUFFERED", "1");
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      Settings.deleteRecursively(dataDir);
      throw new IllegalStateException("cannot launch " + python + ": " + e, e);
    }
    HostLocalStackServer server = new HostLocalStackServer(process, port, dataDir, log);
    try {
      server.awaitHealthy(timeout);
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
    if (server.exitedOnPortClash()) {
      String tail = server.tail();
      server.close();
      throw new PortClash("port " + port + " already in use\n" + tail);
    }
    LOG.info(
        "LocalStack started at {} in {} ms (pid {}, log {})",
        server.endpoint,
        (System.nanoTime() - started) / 1_000_000,
        process.pid(),
        log);
    return server;
  }

  /** Polls the health endpoint with backoff until S3 is up, the process exits, or the deadline. */
  private void awaitHealthy(Duration timeout) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest request =
        HttpRequest.newBuilder(endpoint.resolve("/_localstack/health"))
            .timeout(Duration.ofSeconds(5))
            .build();
    Instant deadline = Instant.now().plus(timeout);
    long backoffMillis = 50;
    String lastAnswer = "no answer";
    while (true) {
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        lastAnswer = "HTTP " + response.statusCode() + " " + response.body();
        if (response.statusCode() == 200 && S3_UP.matcher(response.body()).find()) {
          return;
        }
      } catch (IOException e) {
        lastAnswer = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for LocalStack", e);
      }
      if (!process.isAlive()) {
        if (exitedOnPortClash()) {
          return; // launch() turns this into a retry on another port
        }
        throw new IllegalStateException(
            "LocalStack exited with code " + process.exitValue() + " before S3 was up\n" + tail());
      }
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(
            "LocalStack S3 not healthy within " + timeout + " (last: " + lastAnswer + ")\n" + tail());
      }
      try {
        // Waiting on the process doubles as the backoff and notices an early exit at once.
        process.waitFor(backoffMillis, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for LocalStack", e);
      }
      backoffMillis = Math.min(backoffMillis * 2, 1000);
    }
  }

  private boolean exitedOnPortClash() {
    if (process.isAlive()) {
      return false;
    }
    String tail = Settings.tail(log, TAIL_LINES);
    return tail.contains("Address already in use") || tail.contains("address already in use");
  }

  /** The last lines of the LocalStack process output, for error messages. */
  public String tail() {
    return Settings.tail(log, TAIL_LINES);
  }

  /** The LocalStack process (tests check it is gone after {@link #close()}). */
  ProcessHandle process() {
    return process.toHandle();
  }

  /** The file receiving the LocalStack process output. */
  public Path log() {
    return log;
  }

  @Override
  public String name() {
    return "localstack";
  }

  @Override
  public URI endpoint() {
    return endpoint;
  }

  @Override
  public Region region() {
    return Region.US_EAST_1;
  }

  @Override
  public AwsCredentialsProvider credentialsProvider() {
    return staticCredentials("test", "test");
  }

  @Override
  public boolean pathStyle() {
    return true;
  }

  /** What LocalStack's S3 does, wherever it runs (on the host or in its container). */
  static final Set<S3Feature> LOCALSTACK_FEATURES =
      Collections.unmodifiableSet(
          EnumSet.of(
              S3Feature.CREATE_BUCKET,
              S3Feature.IF_MATCH_ON_GET,
              S3Feature.PART_NUMBER_GET,
              S3Feature.GET_CHECKSUMS));

  @Override
  public Set<S3Feature> features() {
    return LOCALSTACK_FEATURES;
  }

  @Override
  public void close() {
    Settings.removeHook(shutdownHook);
    stop();
  }

  private void stop() {
    if (!markClosed()) {
      return;
    }
    killTree(process);
    try {
      Settings.deleteRecursively(dataDir);
    } catch (UncheckedIOException e) {
      LOG.warn("cannot delete LocalStack data directory {}: {}", dataDir, e.getMessage());
    }
  }

  /**
   * SIGTERM to the process and its descendants, SIGKILL to whatever is left after a short grace
   * period (LocalStack's own shutdown can hang for many seconds; its data is thrown away anyway).
   */
  private static void killTree(Process process) {
    List<ProcessHandle> all = new ArrayList<>();
    process.descendants().forEach(all::add);
    all.add(process.toHandle());
    all.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    for (ProcessHandle handle : all) {
      long left = Math.max(0, deadline - System.nanoTime());
      try {
        handle.onExit().get(left, TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        break;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (ProcessHandle handle : all) {
      if (handle.isAlive()) {
        handle.destroyForcibly();
      }
    }
    try {
      process.onExit().get(10, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      LOG.warn("LocalStack pid {} still alive after SIGKILL", process.pid());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
  static final class PortClash extends Exception {
    private static final long serialVersionUID = 1L;

    PortClash(String message) {
      super(message);
    }
  }
}
