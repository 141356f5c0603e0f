package io.s3broadcast.testkit;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.opentest4j.TestAbortedException;

/**
 * The S3 servers tests can run against, chosen with {@code -Ds3broadcast.test.backend=NAME} (or the
 * environment variable {@code S3BROADCAST_TEST_BACKEND}); {@code s3proxy} when unset.
 *
 * <p>{@link #shared()} starts the backend once per JVM and stops it at JVM exit. A backend that was
 * asked for and cannot start fails every test that needs it with the reason and the server's log tail;
 * only {@link #TESTCONTAINERS} without a Docker engine skips instead.
 */
public enum S3Backend {
  /** In-JVM S3Proxy with a filesystem blob store: {@link S3ProxyServer}. */
  S3PROXY("s3proxy", S3ProxyServer::start),
  /** LocalStack from a host Python venv, no Docker: {@link HostLocalStackServer}. */
  LOCALSTACK("localstack", HostLocalStackServer::start),
  /** LocalStack in Docker: {@link TestcontainersLocalStackServer}. */
  TESTCONTAINERS("testcontainers", TestcontainersLocalStackServer::start),
  /** An existing endpoint from environment variables: {@link ExternalS3Server}. */
  EXTERNAL("external", ExternalS3Server::fromEnvironment);

  /** System property naming the backend. */
  public static final String PROPERTY = "s3broadcast.test.backend";

  private static final Map<S3Backend, Shared> SHARED = new EnumMap<>(S3Backend.class);

  private final String id;
  private final Supplier<? extends S3Server> starter;

  S3Backend(String id, Supplier<? extends S3Server> starter) {
    this.id = id;
    this.starter = starter;
  }

  /** The name used in {@value #PROPERTY}. */
  public String id() {
    return id;
  }

  /** The backend named by {@value #PROPERTY}, else {@code S3BROADCAST_TEST_BACKEND}, else S3Proxy. */
  public static S3Backend selected() {
    return Settings.get(PROPERTY, "S3BROADCAST_TEST_BACKEND").map(S3Backend::of).orElse(S3PROXY);
  }

  public static S3Backend of(String id) {
    String wanted = id.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(values())
        .filter(b -> b.id.equals(wanted))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown S3 backend '"
                        + id
                        + "' in -D"
                        + PROPERTY
                        + "; known: "
                        + Arrays.stream(values()).map(S3Backend::id).collect(Collectors.joining(", "))));
  }

  /** Starts a new server of this backend; the caller closes it. */
  public S3Server start() {
    return starter.get();
  }

  /**
   * This backend's server for the whole JVM, started on first use and closed at exit. If starting
   * failed, every later call fails the same way without trying again.
   */
  public S3Server shared() {
    Shared shared;
    synchronized (SHARED) {
      shared = SHARED.computeIfAbsent(this, Shared::new);
    }
    return shared.get();
  }

  private static final class Shared {
    private final S3Backend backend;
    private S3Server server;
    private RuntimeException failure;

    Shared(S3Backend backend) {
      this.backend = backend;
    }

    synchronized S3Server get() {
      if (server == null && failure == null) {
        try {
          server = backend.start();
          Settings.addShutdownHook("s3broadcast-" + backend.id + "-shutdown", server::close);
        } catch (TestAbortedException e) {
          failure = e;
        } catch (RuntimeException e) {
          failure =
              new IllegalStateException(
                  "S3 backend '"
                      + backend.id
                      + "' (-D"
                      + PROPERTY
                      + "="
                      + backend.id
                      + ") was requested but could not start: "
                      + e.getMessage(),
                  e);
        }
      }
      if (failure != null) {
        throw failure;
      }
      return server;
    }
  }
}
