package io.s3broadcast.bench;

import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.S3ProxyServer;
import io.s3broadcast.testkit.StoredObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * The server and the one object a run downloads: either an embedded S3Proxy with a seeded random object
 * uploaded by the bench, or an existing object on an external endpoint. Closing it stops the embedded server
 * (which deletes its data).
 */
final class Testbed implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Testbed.class);

    static final String SHA256_SEEDED = "seeded";
    static final String SHA256_FIRST_DOWNLOAD = "firstPlainDownload";

    private final Endpoint endpoint;
    private final String bucket;
    private final String key;
    private final long size;
    private final String sha256;
    private final String sha256Source;
    private final AutoCloseable server;

    private Testbed(Endpoint endpoint, String bucket, String key, long size, String sha256, String sha256Source,
            AutoCloseable server) {
        this.endpoint = endpoint;
        this.bucket = bucket;
        this.key = key;
        this.size = size;
        this.sha256 = sha256;
        this.sha256Source = sha256Source;
        this.server = server;
    }

    /**
     * Starts S3Proxy in this JVM and puts {@code size} seeded random bytes on it with the testkit's
     * {@link S3Fixture#putRandom}, streamed (multipart above 16 MiB): the object is generated as it is sent and
     * never held in the heap.
     */
    static Testbed embedded(long size, long seed) {
        return embedded(size, seed, true);
    }

    /**
     * As {@link #embedded(long, long)}, or with {@code multipart} false in one streamed PUT whatever the size
     * ({@link S3Fixture#putRandomSinglePart}), so that its ETag is its MD5.
     */
    static Testbed embedded(long size, long seed, boolean multipart) {
        S3ProxyServer server = S3ProxyServer.start();
        S3Fixture fixture = null;
        try {
            fixture = S3Fixture.create(server, "bench");
            long started = System.nanoTime();
            String key = fixture.key("seed-" + seed + "-" + size + ".bin");
            StoredObject object = multipart ? fixture.putRandom(key, size, seed)
                    : fixture.putRandomSinglePart(key, size, seed);
            Endpoint endpoint = Endpoint.embedded(server);
            LOG.info("uploaded s3://{}/{} ({}) to {} in {} ms", object.bucket(), object.key(), ByteSize.format(size),
                    endpoint.describe(), (System.nanoTime() - started) / 1_000_000);
            S3Fixture owned = fixture;
            return new Testbed(endpoint, object.bucket(), object.key(), size, object.sha256(), SHA256_SEEDED, () -> {
                try {
                    owned.close();
                } finally {
                    server.close();
                }
            });
        } catch (RuntimeException e) {
            if (fixture != null) {
                fixture.close();
            }
            server.close();
            throw e;
        }
    }

    /**
     * An existing object. Its SHA-256 is computed from a first, untimed plain {@code GetObject} into
     * {@code scratch}, since S3 does not store one for every object.
     */
    static Testbed external(Endpoint endpoint, String bucket, String key, Path scratch) throws IOException {
        HeadObjectResponse head;
        try (S3AsyncClient client = endpoint.nettyClient(4).build()) {
            head = client.headObject(b -> b.bucket(bucket).key(key)).join();
        }
        long size = head.contentLength();
        LOG.info("s3://{}/{} at {} is {}; computing its SHA-256 from a first plain download", bucket, key,
                endpoint.describe(), ByteSize.format(size));
        Path file = scratch.resolve("reference.bin");
        try (GetObjectMethod plain = new GetObjectMethod(endpoint)) {
            plain.download(bucket, key, file);
            return new Testbed(endpoint, bucket, key, size, Sha256.of(file), SHA256_FIRST_DOWNLOAD, () -> {
            });
        } finally {
            Files.deleteIfExists(file);
        }
    }

    Endpoint endpoint() {
        return endpoint;
    }

    String bucket() {
        return bucket;
    }

    String key() {
        return key;
    }

    long size() {
        return size;
    }

    /** Hex SHA-256 of the object. */
    String sha256() {
        return sha256;
    }

    /** {@value #SHA256_SEEDED} or {@value #SHA256_FIRST_DOWNLOAD}. */
    String sha256Source() {
        return sha256Source;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (Exception e) {
            LOG.warn("cannot stop the S3 server cleanly: {}", e.toString());
        }
    }
}
