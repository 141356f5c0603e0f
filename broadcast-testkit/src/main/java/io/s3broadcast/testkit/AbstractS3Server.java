package io.s3broadcast.testkit;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3BaseClientBuilder;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/** Client configuration and bucket creation shared by the backends. */
abstract class AbstractS3Server implements S3Server {

  private final Object adminLock = new Object();
  private S3Client admin;
  private boolean closed;

  /** Whether {@link #endpoint()} must be set on clients (false only for AWS's own endpoints). */
  boolean overrideEndpoint() {
    return true;
  }

  /** SDK default: CRC32 on every upload that supports it, which all backends here accept. */
  RequestChecksumCalculation requestChecksumCalculation() {
    return RequestChecksumCalculation.WHEN_SUPPORTED;
  }

  ResponseChecksumValidation responseChecksumValidation() {
    return ResponseChecksumValidation.WHEN_SUPPORTED;
  }

  @Override
  public S3ClientBuilder clientBuilder() {
    return configure(S3Client.builder());
  }

  @Override
  public S3AsyncClientBuilder asyncClientBuilder() {
    return configure(software.amazon.awssdk.services.s3.S3AsyncClient.builder());
  }

  /** Points either kind of client builder at this server, with its credentials and checksum settings. */
  private <B extends S3BaseClientBuilder<B, C>, C> B configure(B builder) {
    builder
        .region(region())
        .credentialsProvider(credentialsProvider())
        .forcePathStyle(pathStyle())
        .requestChecksumCalculation(requestChecksumCalculation())
        .responseChecksumValidation(responseChecksumValidation());
    if (overrideEndpoint()) {
      builder.endpointOverride(endpoint());
    }
    return builder;
  }

  @Override
  public void createBucket(String name) {
    if (!supports(S3Feature.CREATE_BUCKET)) {
      throw new UnsupportedOperationException(name() + " does not create buckets; use fixedBucket()");
    }
    try {
      adminClient().createBucket(b -> b.bucket(name));
    } catch (BucketAlreadyOwnedByYouException e) {
      // Idempotent, as on AWS in us-east-1.
    }
  }

  /** One sync client kept for housekeeping (bucket creation, cleanup). */
  S3Client adminClient() {
    synchronized (adminLock) {
      if (closed) {
        throw new IllegalStateException(name() + " server is closed");
      }
      if (admin == null) {
        admin = newClient();
      }
      return admin;
    }
  }

  /** Closes the housekeeping client; returns false if already closed. */
  final boolean markClosed() {
    synchronized (adminLock) {
      if (closed) {
        return false;
      }
      closed = true;
      if (admin != null) {
        admin.close();
        admin = null;
      }
      return true;
    }
  }

  @Override
  public String toString() {
    return name() + "@" + endpoint();
  }

  static AwsCredentialsProvider staticCredentials(String accessKey, String secretKey) {
    return software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(accessKey, secretKey));
  }

  static URI localUri(int port) {
    return URI.create("http://127.0.0.1:" + port);
  }
}
