package io.s3broadcast.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * S3Proxy 4.1 running inside this JVM on {@code 127.0.0.1} and a free port, storing objects as files
 * in a temporary directory (so multi-GiB objects stream to disk instead of the heap). Starts in well
 * under a second.
 *
 * <p>Known gaps against AWS: no {@code GET ?partNumber=N}, no checksum headers on GET/HEAD. S3Proxy and
 * Jetty log at DEBUG under an unconfigured Logback; {@link #start()} sets {@code org.gaul}, {@code
 * org.eclipse.jetty} and {@code org.jclouds} to WARN unless a configuration file names them.
 */
public final class S3ProxyServer extends AbstractS3Server {

  private static final Logger LOG = LoggerFactory.getLogger(S3ProxyServer.class);
  private static final String ACCESS_KEY = "s3broadcast-access";
  private static final String SECRET_KEY = "s3broadcast-secret";
  /**
   * Jetty's threads: each GET holds one while its body streams. Jetty's default of 200 is fewer than the GETs a
   * 16-node fleet opens at its start (16 nodes x 16 connections = 256, through the bench's throttled S3), and real
   * S3 does not make the ones over it wait.
   */
  static final int JETTY_MAX_THREADS = 1024;

  private final S3Proxy proxy;
  private final BlobStore blobStore;
  private final Path dataDir;
  private final boolean ownsDataDir;
  private final URI endpoint;
  private final Thread shutdownHook;

  private S3ProxyServer(S3Proxy proxy, BlobStore blobStore, Path dataDir, boolean ownsDataDir) {
    this.proxy = proxy;
    this.blobStore = blobStore;
    this.dataDir = dataDir;
    this.ownsDataDir = ownsDataDir;
    this.endpoint = localUri(proxy.getPort());
    this.shutdownHook = Settings.addShutdownHook("s3proxy-cleanup", this::stop);
  }

  /** Starts a server storing its objects in a new temporary directory, deleted on {@link #close()}. */
  public static S3ProxyServer start() {
    try {
      return start(Files.createTempDirectory("s3broadcast-s3proxy-"), true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create S3Proxy data directory", e);
    }
  }

  /** Starts a server storing its objects under {@code dataDir}, which is kept on {@link #close()}. */
  public static S3ProxyServer start(Path dataDir) {
    return start(dataDir, false);
  }

  private static S3ProxyServer start(Path dataDir, boolean ownsDataDir) {
    QuietLogging.quietNoisyLoggers();
    if (LoggerFactory.getLogger("org.gaul").isDebugEnabled()) {
      LOG.warn(
          "org.gaul logs at DEBUG: S3Proxy will write hundreds of MB of logs. Set org.gaul and"
              + " org.eclipse.jetty to WARN in your logging configuration (see broadcast-testkit/README.md).");
    }
    long started = System.nanoTime();
    BlobStore blobStore;
    try {
      Files.createDirectories(dataDir);
      blobStore = new FilesystemNio2BlobStore(dataDir.toAbsolutePath().toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create S3Proxy data directory " + dataDir, e);
    }
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(blobStore)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .ignoreUnknownHeaders(true)
            .jettyMaxThreads(JETTY_MAX_THREADS)
            .stopTimeout(0)
            .build();
    try {
      proxy.start();
    } catch (Exception e) {
      blobStore.close();
      throw new IllegalStateException("S3Proxy failed to start: " + e, e);
    }
    if (!"STARTED".equals(proxy.getState())) {
      stopQuietly(proxy);
      blobStore.close();
      throw new IllegalStateException("S3Proxy did not start, state " + proxy.getState());
    }
    S3ProxyServer server = new S3ProxyServer(proxy, blobStore, dataDir, ownsDataDir);
    LOG.info(
        "S3Proxy started at {} in {} ms, data in {}",
        server.endpoint,
        (System.nanoTime() - started) / 1_000_000,
        dataDir);
    return server;
  }

  @Override
  public String name() {
    return "s3proxy";
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
    return staticCredentials(ACCESS_KEY, SECRET_KEY);
  }

  @Override
  public boolean pathStyle() {
    return true;
  }

  @Override
  public Set<S3Feature> features() {
    return EnumSet.of(S3Feature.CREATE_BUCKET, S3Feature.IF_MATCH_ON_GET, S3Feature.REJECTS_UNKNOWN_CREDENTIALS);
  }

  /** Where the objects are stored (one directory per bucket). */
  public Path dataDir() {
    return dataDir;
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
    stopQuietly(proxy);
    blobStore.close();
    if (ownsDataDir) {
      try {
        Settings.deleteRecursively(dataDir);
      } catch (UncheckedIOException e) {
        LOG.warn("cannot delete S3Proxy data directory {}: {}", dataDir, e.getMessage());
      }
    }
  }

  private static void stopQuietly(S3Proxy proxy) {
    try {
      proxy.stop();
    } catch (Exception e) {
      LOG.warn("S3Proxy did not stop cleanly: {}", e.toString());
    }
  }
}
