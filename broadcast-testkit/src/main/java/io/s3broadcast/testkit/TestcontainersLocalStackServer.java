package io.s3broadcast.testkit;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * LocalStack (S3 only) in a Docker container through Testcontainers, for machines with a Docker
 * engine. Where there is none, {@link #start()} aborts the calling test (JUnit assumption) with the
 * reason, so such tests are reported as skipped, not failed.
 *
 * <p>The image is {@value #DEFAULT_IMAGE} unless {@code -Ds3broadcast.localstack.image} (or {@code
 * S3BROADCAST_LOCALSTACK_IMAGE}) names another; {@code LOCALSTACK_AUTH_TOKEN} is passed on if set.
 */
public final class TestcontainersLocalStackServer extends AbstractS3Server {

  public static final String DEFAULT_IMAGE = "localstack/localstack:4.4";

  private static final Logger LOG = LoggerFactory.getLogger(TestcontainersLocalStackServer.class);

  private final LocalStackContainer container;
  private final URI endpoint;

  private TestcontainersLocalStackServer(LocalStackContainer container) {
    this.container = container;
    this.endpoint = container.getEndpoint();
  }

  /** Starts a container; skips the current test if there is no Docker engine. */
  public static TestcontainersLocalStackServer start() {
    assumeDockerAvailable();
    String image =
        Settings.get("s3broadcast.localstack.image", "S3BROADCAST_LOCALSTACK_IMAGE").orElse(DEFAULT_IMAGE);
    long started = System.nanoTime();
    LocalStackContainer container =
        new LocalStackContainer(
                DockerImageName.parse(image).asCompatibleSubstituteFor("localstack/localstack"))
            .withServices("s3");
    String token = System.getenv("LOCALSTACK_AUTH_TOKEN");
    if (token != null && !token.isBlank()) {
      container.withEnv("LOCALSTACK_AUTH_TOKEN", token);
    }
    try {
      container.start();
    } catch (RuntimeException e) {
      container.stop();
      throw new IllegalStateException("LocalStack container " + image + " failed to start: " + e, e);
    }
    TestcontainersLocalStackServer server = new TestcontainersLocalStackServer(container);
    LOG.info(
        "LocalStack container {} started at {} in {} ms",
        image,
        server.endpoint,
        (System.nanoTime() - started) / 1_000_000);
    return server;
  }

  /** Aborts the current test, with the reason, where Testcontainers finds no Docker engine. */
  public static void assumeDockerAvailable() {
    boolean available;
    String reason;
    try {
      available = DockerClientFactory.instance().isDockerAvailable();
      String host = System.getenv("DOCKER_HOST");
      reason =
          "Testcontainers found no working Docker environment (DOCKER_HOST="
              + (host == null ? "unset" : host)
              + ", /var/run/docker.sock "
              + (Files.exists(Path.of("/var/run/docker.sock"))
                  ? "present"
                  : "absent")
              + ")";
    } catch (RuntimeException | LinkageError e) {
      available = false;
      reason = e.toString();
    }
    Assumptions.assumeTrue(
        available, "no Docker engine: " + reason + "; the testcontainers backend is skipped");
  }

  @Override
  public String name() {
    return "testcontainers";
  }

  @Override
  public URI endpoint() {
    return endpoint;
  }

  @Override
  public Region region() {
    return Region.of(container.getRegion());
  }

  @Override
  public AwsCredentialsProvider credentialsProvider() {
    return staticCredentials(container.getAccessKey(), container.getSecretKey());
  }

  @Override
  public boolean pathStyle() {
    return true;
  }

  @Override
  public Set<S3Feature> features() {
    return HostLocalStackServer.LOCALSTACK_FEATURES;
  }

  @Override
  public void close() {
    if (markClosed()) {
      container.stop();
    }
  }
}
