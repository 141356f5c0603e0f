package io.s3broadcast.testkit;

import java.net.URI;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * An S3 endpoint that already runs elsewhere (AWS itself, MinIO, ...), configured by environment
 * variables (or the system properties in brackets):
 *
 * <ul>
 *   <li>{@code S3BROADCAST_TEST_BUCKET} ({@code s3broadcast.test.bucket}), required: an existing bucket.
 *       Tests do not create buckets here; each one writes under a unique key prefix and deletes it after.
 *   <li>{@code S3BROADCAST_TEST_REGION} ({@code s3broadcast.test.region}), default {@code us-east-1}.
 *   <li>{@code S3BROADCAST_TEST_ENDPOINT} ({@code s3broadcast.test.endpoint}), optional: absent means
 *       AWS's regional endpoint.
 *   <li>{@code S3BROADCAST_TEST_PATH_STYLE} ({@code s3broadcast.test.pathStyle}), default true when an
 *       endpoint is given, else false.
 * </ul>
 *
 * Credentials come from the SDK's default provider chain ({@code AWS_PROFILE}, {@code
 * AWS_ACCESS_KEY_ID}, instance roles, ...).
 */
public final class ExternalS3Server extends AbstractS3Server {

  private final String bucket;
  private final Region region;
  private final Optional<URI> endpoint;
  private final boolean pathStyle;
  private final DefaultCredentialsProvider credentials;

  private ExternalS3Server(String bucket, Region region, Optional<URI> endpoint, boolean pathStyle) {
    this.bucket = bucket;
    this.region = region;
    this.endpoint = endpoint;
    this.pathStyle = pathStyle;
    this.credentials = DefaultCredentialsProvider.builder().build();
  }

  /** Reads the configuration; fails with a message naming the missing variable. */
  public static ExternalS3Server fromEnvironment() {
    String bucket =
        Settings.get("s3broadcast.test.bucket", "S3BROADCAST_TEST_BUCKET")
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "backend 'external' needs S3BROADCAST_TEST_BUCKET (or"
                            + " -Ds3broadcast.test.bucket): an existing bucket tests may write to"));
    Region region =
        Region.of(Settings.get("s3broadcast.test.region", "S3BROADCAST_TEST_REGION").orElse("us-east-1"));
    Optional<URI> endpoint =
        Settings.get("s3broadcast.test.endpoint", "S3BROADCAST_TEST_ENDPOINT").map(URI::create);
    boolean pathStyle =
        Settings.get("s3broadcast.test.pathStyle", "S3BROADCAST_TEST_PATH_STYLE")
            .map(Boolean::parseBoolean)
            .orElse(endpoint.isPresent());
    return new ExternalS3Server(bucket, region, endpoint, pathStyle);
  }

  @Override
  public String name() {
    return "external";
  }

  @Override
  public URI endpoint() {
    return endpoint.orElseGet(() -> URI.create("https://s3." + region.id() + ".amazonaws.com"));
  }

  @Override
  boolean overrideEndpoint() {
    return endpoint.isPresent();
  }

  @Override
  public Region region() {
    return region;
  }

  @Override
  public AwsCredentialsProvider credentialsProvider() {
    return credentials;
  }

  @Override
  public boolean pathStyle() {
    return pathStyle;
  }

  @Override
  public Set<S3Feature> features() {
    // Assumed to be AWS S3; a non-AWS endpoint may lack some of these.
    return EnumSet.of(S3Feature.IF_MATCH_ON_GET, S3Feature.PART_NUMBER_GET, S3Feature.GET_CHECKSUMS,
        S3Feature.REJECTS_UNKNOWN_CREDENTIALS);
  }

  @Override
  public Optional<String> fixedBucket() {
    return Optional.of(bucket);
  }

  @Override
  public void close() {
    if (markClosed()) {
      credentials.close();
    }
  }
}
