package io.s3broadcast.testkit;

import io.s3broadcast.Broadcast;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * What one test gets from {@link S3ServerExtension}: a server, a place of its own on it (a fresh
 * bucket, or a unique key prefix in a shared bucket for {@link ExternalS3Server}), clients closed
 * after the test, and helpers to put objects without holding them in memory.
 *
 * <p>Always build keys with {@link #key(String)} so tests also work against a shared bucket. {@link
 * #close()} deletes everything the test wrote (and the bucket, if it created one).
 */
public final class S3Fixture implements AutoCloseable {

  /** Objects larger than this are uploaded in parts by {@link #putRandom}. */
  public static final long MULTIPART_THRESHOLD = 16L << 20;

  /** Part size of multipart uploads by {@link #putRandom}. */
  public static final long PART_SIZE = 16L << 20;

  private static final Logger LOG = LoggerFactory.getLogger(S3Fixture.class);
  private static final int UPLOAD_THREADS = 4;

  private final S3Server server;
  private final String bucket;
  private final String prefix;
  private final boolean ownsBucket;
  private final Object lock = new Object();
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private S3Client client;
  private S3AsyncClient asyncClient;
  private boolean closed;

  private S3Fixture(S3Server server, String bucket, String prefix, boolean ownsBucket) {
    this.server = server;
    this.bucket = bucket;
    this.prefix = prefix;
    this.ownsBucket = ownsBucket;
  }

  /**
   * A fixture on {@code server} named after {@code testName}: a new bucket where the server makes
   * them, else a unique prefix in its fixed bucket.
   */
  public static S3Fixture create(S3Server server, String testName) {
    String unique = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String slug = slug(testName);
    if (server.supports(S3Feature.CREATE_BUCKET)) {
      String bucket = ("s3b-" + slug).substring(0, Math.min(4 + slug.length(), 46)) + "-" + unique;
      server.createBucket(bucket);
      return new S3Fixture(server, bucket, "", true);
    }
    String bucket =
        server
            .fixedBucket()
            .orElseThrow(() -> new IllegalStateException(server + " neither creates nor names a bucket"));
    return new S3Fixture(server, bucket, "s3broadcast-test/" + slug + "-" + unique + "/", false);
  }

  public S3Server server() {
    return server;
  }

  public URI endpoint() {
    return server.endpoint();
  }

  public Region region() {
    return server.region();
  }

  public AwsCredentialsProvider credentialsProvider() {
    return server.credentialsProvider();
  }

  /** The bucket this test writes to. */
  public String bucket() {
    return bucket;
  }

  /** The key prefix of this test: empty in a bucket of its own. */
  public String prefix() {
    return prefix;
  }

  /** {@code name} under this test's prefix. */
  public String key(String name) {
    return prefix + name;
  }

  /**
   * A {@link Broadcast} builder pointed at this server: endpoint, region, credentials and addressing
   * set, everything else the library's defaults. {@code s3.broadcastBuilder().build()} fetches from the
   * test's bucket.
   */
  public Broadcast.Builder broadcastBuilder() {
    Broadcast.Builder builder =
        Broadcast.builder()
            .region(server.region())
            .credentialsProvider(server.credentialsProvider())
            .pathStyle(server.pathStyle());
    // AWS's own endpoints (the external backend without an endpoint) are the SDK's to choose.
    if (!(server instanceof AbstractS3Server s) || s.overrideEndpoint()) {
      builder.endpoint(server.endpoint());
    }
    return builder;
  }

  public boolean supports(S3Feature feature) {
    return server.supports(feature);
  }

  /** Skips the test, naming backend and feature, where the backend lacks {@code feature}. */
  public void assumeSupports(S3Feature feature) {
    Assumptions.assumeTrue(
        server.supports(feature), () -> "backend " + server.name() + " lacks " + feature);
  }

  /** A sync client for this server, shared within the test and closed after it. */
  public S3Client client() {
    synchronized (lock) {
      checkOpen();
      if (client == null) {
        client = server.newClient();
      }
      return client;
    }
  }

  /** An async client for this server, shared within the test and closed after it. */
  public S3AsyncClient asyncClient() {
    synchronized (lock) {
      checkOpen();
      if (asyncClient == null) {
        asyncClient = server.newAsyncClient();
      }
      return asyncClient;
    }
  }

  /** Registers something (another client, a proxy) to be closed with the fixture, before cleanup. */
  public <T extends AutoCloseable> T closeAfterTest(T resource) {
    synchronized (lock) {
      checkOpen();
      toClose.add(Objects.requireNonNull(resource));
      return resource;
    }
  }

  /**
   * Puts {@code size} bytes of {@link SeededData} with {@code seed} at {@code key} (a full key: use
   * {@link #key(String)}), streaming: never more than a few parts in memory. Objects above {@link
   * #MULTIPART_THRESHOLD} go up as a multipart upload of {@link #PART_SIZE} parts with CRC32 part
   * checksums, so backends with {@link S3Feature#GET_CHECKSUMS} report a composite CRC32 ({@code
   * "...-N"}); smaller ones carry the SDK's full-object CRC32.
   */
  public StoredObject putRandom(String key, long size, long seed) {
    if (size < 0) {
      throw new IllegalArgumentException("size < 0: " + size);
    }
    if (size <= MULTIPART_THRESHOLD) {
      return putRandomSinglePart(key, size, seed);
    }
    return putMultipart(key, size, seed);
  }

  /**
   * Puts {@code size} bytes of {@link SeededData} with {@code seed} at {@code key} in one streamed {@code
   * PutObject}, whatever the size (S3 takes up to 5 GiB in one PUT): the ETag is the object's MD5 on every
   * backend, and the object carries the SDK's full-object CRC32.
   */
  public StoredObject putRandomSinglePart(String key, long size, long seed) {
    if (size < 0) {
      throw new IllegalArgumentException("size < 0: " + size);
    }
    String eTag =
        client()
            .putObject(
                b -> b.bucket(bucket).key(key).contentLength(size),
                RequestBody.fromContentProvider(
                    SeededData.contentProvider(seed, 0, size), size, "application/octet-stream"))
            .eTag();
    return new StoredObject(bucket, key, size, SeededData.sha256Hex(seed, size), eTag);
  }

  /** Puts {@code data} at {@code key} in one request. */
  public StoredObject putBytes(String key, byte[] data) {
    String eTag =
        client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(data)).eTag();
    MessageDigest digest = SeededData.sha256();
    return new StoredObject(
        bucket, key, data.length, HexFormat.of().formatHex(digest.digest(data)), eTag);
  }

  /** Replaces an existing object with {@code data}; fails if there is nothing at {@code key}. */
  public StoredObject overwrite(String key, byte[] data) {
    requireExists(key);
    return putBytes(key, data);
  }

  /** Replaces an existing object with seeded data; fails if there is nothing at {@code key}. */
  public StoredObject overwriteRandom(String key, long size, long seed) {
    requireExists(key);
    return putRandom(key, size, seed);
  }

  /** The whole object (small objects only). */
  public byte[] getBytes(String key) {
    return client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
  }

  /** Bytes {@code [first, last]} of the object (inclusive, as in the HTTP Range header). */
  public byte[] getRange(String key, long first, long last) {
    return client()
        .getObjectAsBytes(b -> b.bucket(bucket).key(key).range("bytes=" + first + "-" + last))
        .asByteArray();
  }

  /** Hex SHA-256 of the object, downloaded as a stream. */
  public String sha256(String key) {
    MessageDigest digest = SeededData.sha256();
    byte[] buf = new byte[1 << 20];
    try (ResponseInputStream<GetObjectResponse> in =
        client().getObject(b -> b.bucket(bucket).key(key))) {
      int n;
      while ((n = in.read(buf)) > 0) {
        digest.update(buf, 0, n);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading s3://" + bucket + "/" + key, e);
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  private StoredObject putMultipart(String key, long size, long seed) {
    S3Client s3 = client();
    String uploadId =
        s3.createMultipartUpload(
                b ->
                    b.bucket(bucket)
                        .key(key)
                        .contentType("application/octet-stream")
                        .checksumAlgorithm(ChecksumAlgorithm.CRC32))
            .uploadId();
    int parts = (int) ((size + PART_SIZE - 1) / PART_SIZE);
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(UPLOAD_THREADS, parts),
            r -> {
              Thread t = new Thread(r, "s3fixture-upload");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<CompletedPart>> futures = new ArrayList<>(parts);
      for (int i = 0; i < parts; i++) {
        int partNumber = i + 1;
        long offset = i * PART_SIZE;
        long length = Math.min(PART_SIZE, size - offset);
        futures.add(
            pool.submit(
                () -> {
                  UploadPartResponse response =
                      s3.uploadPart(
                          b ->
                              b.bucket(bucket)
                                  .key(key)
                                  .uploadId(uploadId)
                                  .partNumber(partNumber)
                                  .contentLength(length)
                                  .checksumAlgorithm(ChecksumAlgorithm.CRC32),
                          RequestBody.fromContentProvider(
                              SeededData.contentProvider(seed, offset, length),
                              length,
                              "application/octet-stream"));
                  // The upload was created with CRC32, so Complete must name each part's CRC32 (S3
                  // and LocalStack check it; S3Proxy returns none and ignores it). LocalStack rejects
                  // part checksums with 400 InvalidPart on an upload created without an algorithm.
                  return CompletedPart.builder()
                      .partNumber(partNumber)
                      .eTag(response.eTag())
                      .checksumCRC32(response.checksumCRC32())
                      .build();
                }));
      }
      // Hash on this thread while the parts upload.
      String sha256 = SeededData.sha256Hex(seed, size);
      List<CompletedPart> completed = new ArrayList<>(parts);
      for (Future<CompletedPart> future : futures) {
        completed.add(future.get());
      }
      String eTag =
          s3.completeMultipartUpload(
                  b ->
                      b.bucket(bucket)
                          .key(key)
                          .uploadId(uploadId)
                          .multipartUpload(m -> m.parts(completed)))
              .eTag();
      return new StoredObject(bucket, key, size, sha256, eTag);
    } catch (InterruptedException | ExecutionException | RuntimeException e) {
      pool.shutdownNow();
      try {
        s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
      } catch (RuntimeException abort) {
        e.addSuppressed(abort);
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("multipart upload of s3://" + bucket + "/" + key + " failed", cause);
    } finally {
      pool.shutdownNow();
    }
  }

  private void requireExists(String key) {
    try {
      client().headObject(b -> b.bucket(bucket).key(key));
    } catch (NoSuchKeyException e) {
      throw new IllegalStateException("nothing to overwrite at s3://" + bucket + "/" + key, e);
    } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
      if (e.statusCode() == 404) {
        throw new IllegalStateException("nothing to overwrite at s3://" + bucket + "/" + key, e);
      }
      throw e;
    }
  }

  /** Closes the clients, deletes what the test wrote and, if it made one, the bucket; idempotent. */
  @Override
  public void close() {
    List<AutoCloseable> resources;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      resources = new ArrayList<>(toClose);
      if (client != null) {
        resources.add(client);
      }
      if (asyncClient != null) {
        resources.add(asyncClient);
      }
      client = null;
      asyncClient = null;
    }
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        LOG.warn("closing {} after test: {}", resources.get(i), e.toString());
      }
    }
    try (S3Client s3 = server.newClient()) {
      deleteEverything(s3);
    } catch (RuntimeException e) {
      LOG.warn("cleanup of s3://{}/{} on {} failed: {}", bucket, prefix, server.name(), e.toString());
    }
  }

  private void deleteEverything(S3Client s3) {
    s3.listMultipartUploadsPaginator(b -> b.bucket(bucket).prefix(prefix))
        .uploads()
        .forEach(u -> s3.abortMultipartUpload(b -> b.bucket(bucket).key(u.key()).uploadId(u.uploadId())));
    // One DELETE per key: tests write few objects, and every backend supports it.
    s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix))
        .contents()
        .forEach(o -> s3.deleteObject(b -> b.bucket(bucket).key(o.key())));
    if (ownsBucket) {
      s3.deleteBucket(b -> b.bucket(bucket));
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("fixture for s3://" + bucket + "/" + prefix + " is closed");
    }
  }

  private static String slug(String name) {
    String s = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-+|-+$)", "");
    return s.isEmpty() ? "test" : s;
  }

  @Override
  public String toString() {
    return "S3Fixture[" + server.name() + " s3://" + bucket + "/" + prefix + "]";
  }
}
