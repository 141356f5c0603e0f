package io.s3broadcast.testkit;

import java.net.URI;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * A running S3-compatible server for tests: where it is, how to sign requests to it, and clients
 * configured for it (path-style where needed, checksum settings the backend accepts).
 *
 * <p>Implementations: {@link S3ProxyServer} (in-JVM, default), {@link HostLocalStackServer} (LocalStack
 * run from a Python venv, no Docker), {@link TestcontainersLocalStackServer} (LocalStack in Docker) and
 * {@link ExternalS3Server} (any endpoint, e.g. AWS). {@link S3Backend} picks one from system properties;
 * the JUnit extension {@link S3ServerExtension} hands each test an {@link S3Fixture} on top of it.
 */
public interface S3Server extends AutoCloseable {

  /** Short backend name, e.g. {@code s3proxy}. */
  String name();

  /** Base URI of the S3 API, e.g. {@code http://127.0.0.1:41234}. */
  URI endpoint();

  Region region();

  /** Credentials accepted by the server (static for local backends, the default chain for external). */
  AwsCredentialsProvider credentialsProvider();

  /** Whether clients must use path-style addressing ({@code http://host/bucket/key}). */
  boolean pathStyle();

  /** What this backend does beyond basic GET/PUT/ranged GET/multipart upload. */
  Set<S3Feature> features();

  default boolean supports(S3Feature feature) {
    return features().contains(feature);
  }

  /**
   * Creates a bucket. Throws {@link UnsupportedOperationException} where the backend has no
   * {@link S3Feature#CREATE_BUCKET}; use {@link #fixedBucket()} there.
   */
  void createBucket(String name);

  /** The existing bucket tests must share (with unique key prefixes), for backends without buckets of their own. */
  default Optional<String> fixedBucket() {
    return Optional.empty();
  }

  /** A sync client builder pointed at this server; the caller may change anything before {@code build()}. */
  S3ClientBuilder clientBuilder();

  /** An async (Netty) client builder pointed at this server. */
  S3AsyncClientBuilder asyncClientBuilder();

  /** A new sync client; the caller closes it. */
  default S3Client newClient() {
    return clientBuilder().build();
  }

  /** A new async client; the caller closes it. */
  default S3AsyncClient newAsyncClient() {
    return asyncClientBuilder().build();
  }

  /** Stops the server and deletes what it stored; idempotent. */
  @Override
  void close();
}
