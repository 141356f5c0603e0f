package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceConfig;
import io.s3broadcast.spi.SourceListener;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Feature;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.SeededData;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.proxy.Fault;
import io.s3broadcast.testkit.proxy.FaultKind;
import io.s3broadcast.testkit.proxy.FaultProxy;
import io.s3broadcast.testkit.proxy.Rule;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The S3 source against a real S3 server, directly and through a {@link FaultProxy}. */
@RealS3
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class S3ObjectSourceIT {

    static final int PIECE = 1 << 20;
    static final long RANGE = 4L << 20;
    /** The timeouts not under test: a healthy request on a loaded machine never meets them. */
    static final Duration GENEROUS = Duration.ofSeconds(30);
    /**
     * A timeout under test that healthy requests (the retry, the other ranges) must beat as well: a sub-second one
     * can be missed by a slow server or a GC pause on a loaded machine, adding retries. Costs one wait per test.
     */
    static final Duration UNDER_TEST = Duration.ofSeconds(3);

    @TempDir
    Path dir;

    SourceConfig config(S3Fixture s3, URI endpoint, int connections, int maxAttempts, Duration stallTimeout) {
        return config(s3, "netty", endpoint, connections, maxAttempts, stallTimeout);
    }

    SourceConfig config(S3Fixture s3, String httpClient, URI endpoint, int connections, int maxAttempts,
            Duration stallTimeout) {
        return new SourceConfig(null, endpoint, s3.region(), s3.credentialsProvider(), true, httpClient, connections,
                RANGE, maxAttempts, Duration.ofMillis(10), Duration.ofMillis(200), stallTimeout, stallTimeout,
                Duration.ofSeconds(10));
    }

    ObjectSource source(S3Fixture s3, SourceConfig config) {
        return s3.closeAfterTest(new S3ObjectSourceProvider().create(config));
    }

    ObjectSource source(S3Fixture s3) {
        return source(s3, config(s3, s3.endpoint(), 4, 3, Duration.ofSeconds(10)));
    }

    FaultProxy proxy(S3Fixture s3) throws IOException {
        return s3.closeAfterTest(FaultProxy.start(new InetSocketAddress("127.0.0.1", s3.endpoint().getPort())));
    }

    /** Fetches every piece, checks each piece's CRC32C against the disk, commits, returns the file. */
    Path fetchAll(ObjectSource source, ObjectInfo info, SourceListener listener) throws Exception {
        PieceStore store = PieceStore.create(dir.resolve("fetched-" + System.nanoTime()), new PieceLayout(info.size(), PIECE));
        try {
            source.fetch(info, PieceQueue.ofRange(0, store.layout().pieceCount()), store, listener).get(2, TimeUnit.MINUTES);
            assertThat(store.isComplete()).isTrue();
            for (int p = 0; p < store.layout().pieceCount(); p++) {
                assertThat(store.crc32c(p)).as("CRC32C of piece %d", p).isEqualTo(store.crc32cOnDisk(p));
            }
            return store.commit();
        } finally {
            store.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"netty", "crt"})
    void fetchesALargeObjectByteExact(String httpClient, S3Fixture s3) throws Exception {
        long size = (64L << 20) + 12_345; // not a multiple of the range nor of the piece
        StoredObject object = s3.putRandom(s3.key("large.bin"), size, 64);
        ObjectSource source = source(s3, config(s3, httpClient, s3.endpoint(), 4, 3, Duration.ofSeconds(10)));
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        assertThat(info.size()).isEqualTo(size);
        assertThat(ETags.unquote(info.eTag())).isEqualTo(ETags.unquote(object.eTag()));
        if (s3.supports(S3Feature.GET_CHECKSUMS)) {
            // putRandom uploads 16 MiB parts with CRC32 checksums: a composite checksum with 5 parts.
            ObjectChecksum c = info.checksum().orElseThrow();
            assertThat(c.algorithm()).isEqualTo("CRC32");
            assertThat(c.fullObject()).isFalse();
            assertThat(c.partSizes()).containsExactly(16L << 20, 16L << 20, 16L << 20, 16L << 20, 12_345L);
        } else {
            assertThat(info.checksum()).isEmpty();
        }
        Counting listener = new Counting();
        Path file = fetchAll(source, info, listener);
        assertThat(sha256(file)).isEqualTo(object.sha256());
        assertThat(listener.bytes.get()).isEqualTo(size);
        assertThat(listener.pieces.get()).isEqualTo(65);
        assertThat(listener.retries).isEmpty();
    }

    @Test
    void fetchesEmptyAndOneByteObjects(S3Fixture s3) throws Exception {
        ObjectSource source = source(s3);
        for (byte[] data : List.of(new byte[0], new byte[] {42})) {
            StoredObject object = s3.putBytes(s3.key("small-" + data.length), data);
            ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
            assertThat(info.size()).isEqualTo(data.length);
            assertThat(Files.readAllBytes(fetchAll(source, info, SourceListener.NONE))).isEqualTo(data);
        }
    }

    @Test
    void missingKeyAndMissingBucketAreNamed(S3Fixture s3) {
        ObjectSource source = source(s3);
        assertThatThrownBy(() -> source.head(s3.bucket(), s3.key("nope")).get(1, TimeUnit.MINUTES))
                .cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                .hasMessageContaining("s3://" + s3.bucket() + "/" + s3.key("nope") + " does not exist");
        String bucket = "s3b-missing-" + System.nanoTime();
        assertThatThrownBy(() -> source.head(bucket, "k").get(1, TimeUnit.MINUTES))
                .cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                .hasMessageContaining("bucket " + bucket + " does not exist");
        // A GET finds a missing key too (deleted after the HEAD).
        ObjectInfo gone = new ObjectInfo(s3.bucket(), s3.key("gone"), 10, "\"0123\"", Optional.empty());
        assertThatThrownBy(() -> fetchAll(source, gone, SourceListener.NONE))
                .cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                .hasMessageContaining(s3.key("gone"));
    }

    @Test
    void badCredentialsAreAccessDenied(S3Fixture s3) throws Exception {
        s3.assumeSupports(S3Feature.REJECTS_UNKNOWN_CREDENTIALS);
        StoredObject object = s3.putBytes(s3.key("secret"), new byte[] {1, 2, 3});
        SourceConfig good = config(s3, s3.endpoint(), 2, 3, Duration.ofSeconds(10));
        SourceConfig bad = new SourceConfig(null, good.endpoint(), good.region(),
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIAWRONGWRONGWRONG0", "not-the-secret")),
                true, "netty", 2, RANGE, 3, good.initialBackoff(), good.maxBackoff(), good.stallTimeout(),
                good.firstByteTimeout(), good.headTimeout());
        ObjectSource source = source(s3, bad);
        assertThatThrownBy(() -> source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES))
                .cause().isInstanceOf(BroadcastException.AccessDenied.class)
                .hasMessageContaining("check credentials/region")
                .hasMessageContaining("s3:GetObject on arn:aws:s3:::" + s3.bucket() + "/" + object.key());
        ObjectInfo info = source(s3, good).head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        assertThatThrownBy(() -> fetchAll(source, info, SourceListener.NONE))
                .cause().isInstanceOf(BroadcastException.AccessDenied.class)
                .hasMessageContaining("bytes 0-2");
    }

    @Test
    void readsASmallRangeByteExactAndPinnedToTheETag(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("sampled.bin"), 3L * PIECE + 17, 77);
        ObjectSource source = source(s3);
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        ByteBuffer sample = source.read(info, PIECE + 5, 16 << 10).get(1, TimeUnit.MINUTES);
        assertThat(sample.remaining()).isEqualTo(16 << 10);
        byte[] got = new byte[sample.remaining()];
        sample.get(got);
        assertThat(got).isEqualTo(SeededData.bytes(77, PIECE + 5, 16 << 10));
        ByteBuffer tail = source.read(info, info.size() - 17, 17).get(1, TimeUnit.MINUTES);
        assertThat(tail.remaining()).isEqualTo(17);
        assertThatThrownBy(() -> source.read(info, info.size() - 1, 2).get(1, TimeUnit.MINUTES))
                .cause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not within");
        if (s3.supports(S3Feature.IF_MATCH_ON_GET)) {
            s3.overwriteRandom(object.key(), 3L * PIECE + 17, 78);
            assertThatThrownBy(() -> source.read(info, 0, 100).get(1, TimeUnit.MINUTES))
                    .cause().isInstanceOf(BroadcastException.ObjectChanged.class);
        }
    }

    @Test
    void objectReplacedDuringTheFetchIsObjectChanged(S3Fixture s3) throws Exception {
        s3.assumeSupports(S3Feature.IF_MATCH_ON_GET);
        StoredObject object = s3.putRandom(s3.key("replaced.bin"), 4L * PIECE, 1);
        SourceConfig c = config(s3, s3.endpoint(), 1, 3, Duration.ofSeconds(10));
        ObjectSource source = source(s3, new SourceConfig(null, c.endpoint(), c.region(), c.credentials(), true, "netty",
                1, PIECE, 3, c.initialBackoff(), c.maxBackoff(), c.stallTimeout(),
                c.firstByteTimeout(), c.headTimeout()));
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        PieceStore store = PieceStore.create(dir.resolve("replaced"), new PieceLayout(info.size(), PIECE));
        PieceQueue all = PieceQueue.ofRange(0, 4);
        AtomicInteger polls = new AtomicInteger();
        // One connection, one piece per GET: the second poll comes after the first piece landed.
        PieceQueue replaceAfterFirst = max -> {
            if (polls.incrementAndGet() == 2) {
                s3.overwriteRandom(object.key(), 4L * PIECE, 2);
            }
            return all.poll(max);
        };
        try (store) {
            CompletableFuture<Void> f = source.fetch(info, replaceAfterFirst, store, SourceListener.NONE);
            assertThatThrownBy(() -> f.get(1, TimeUnit.MINUTES)).isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOf(BroadcastException.ObjectChanged.class)
                    .hasMessageContaining("s3://" + s3.bucket() + "/" + object.key())
                    .hasMessageContaining(info.eTag())
                    .hasMessageContaining("it now has ETag " + source.head(s3.bucket(), object.key())
                            .get(1, TimeUnit.MINUTES).eTag())
                    .hasMessageContaining("fetch again");
            assertThat(store.presentCount()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"netty", "crt"})
    void slowDownsAreRetriedByteExact(String httpClient, S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("slow.bin"), (16L << 20) + 7, 503);
        FaultProxy proxy = proxy(s3);
        Rule slowDown = proxy.add(Rule.forGets().withRange().times(3).inject(Fault.slowDown()));
        ObjectSource source = source(s3, config(s3, httpClient, proxy.endpoint(), 4, 5, Duration.ofSeconds(10)));
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        Counting listener = new Counting();
        assertThat(sha256(fetchAll(source, info, listener))).isEqualTo(object.sha256());
        assertThat(slowDown.injected()).isEqualTo(3);
        assertThat(listener.retries).hasSize(3);
        assertThat(listener.causes).allSatisfy(c -> assertThat(Failures.describe(c)).startsWith("503 SlowDown"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"netty", "crt"})
    void bodiesCutMidwayAreResumedByteExact(String httpClient, S3Fixture s3) throws Exception {
        long size = (16L << 20) + 7;
        StoredObject object = s3.putRandom(s3.key("cut.bin"), size, 7);
        FaultProxy proxy = proxy(s3);
        // The first range ends cleanly after 1.5 pieces (a short body); a later one is reset.
        Rule truncate = proxy.add(Rule.forGets().range("bytes=0-4194303").inject(Fault.truncateAfter(PIECE + PIECE / 2)));
        Rule reset = proxy.add(Rule.forGets().range("bytes=8388608-12582911").inject(Fault.resetAfter(PIECE / 2)));
        ObjectSource source = source(s3, config(s3, httpClient, proxy.endpoint(), 2, 5, Duration.ofSeconds(10)));
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        Counting listener = new Counting();
        assertThat(sha256(fetchAll(source, info, listener))).isEqualTo(object.sha256());
        assertThat(truncate.injected()).isEqualTo(1);
        assertThat(reset.injected()).isEqualTo(1);
        assertThat(proxy.stats().faults(FaultKind.RESET)).isEqualTo(1);
        assertThat(listener.retries).hasSize(2);
        // The short body stored piece 0; the retry asked only for pieces 1-3.
        assertThat(listener.retries).contains(new PieceRun(1, 4));
        assertThat(listener.bytes.get()).isLessThan(size + 2 * RANGE);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"netty", "crt"})
    void aStalledBodyIsAbandonedAndRetried(String httpClient, S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("stall.bin"), (8L << 20) + 1, 11);
        FaultProxy proxy = proxy(s3);
        Rule stall = proxy.add(Rule.forGets().range("bytes=4194304-8388607").inject(Fault.stallAfter(64 << 10)));
        ObjectSource source = source(s3, timeouts(s3, httpClient, proxy.endpoint(), 3, UNDER_TEST, GENEROUS,
                GENEROUS));
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        Counting listener = new Counting();
        assertThat(sha256(fetchAll(source, info, listener))).isEqualTo(object.sha256());
        assertThat(stall.injected()).isEqualTo(1);
        // The faulted range was retried and no other was; not how often (a slow retry may be retried again).
        assertThat(listener.retries).contains(new PieceRun(4, 8));
        assertThat(listener.causes).allSatisfy(c -> assertThat(c).hasMessageContaining("bytes 4194304-8388607"));
        assertThat(listener.causes.get(0)).hasMessageContaining("stalled");
    }

    /** A config with the three timeouts apart: the one under test short, the others {@link #GENEROUS}. */
    SourceConfig timeouts(S3Fixture s3, String httpClient, URI endpoint, int maxAttempts, Duration stallTimeout,
            Duration firstByteTimeout, Duration headTimeout) {
        return new SourceConfig(null, endpoint, s3.region(), s3.credentialsProvider(), true, httpClient, 2, RANGE,
                maxAttempts, Duration.ofMillis(10), Duration.ofMillis(200), stallTimeout, firstByteTimeout,
                headTimeout);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"netty", "crt"})
    void aHeadStalledMidResponseIsAbandonedAtTheHeadTimeoutAndRetried(String httpClient, S3Fixture s3)
            throws Exception {
        StoredObject object = s3.putRandom(s3.key("head-stall.bin"), 1000, 12);
        FaultProxy proxy = proxy(s3);
        Rule stall = proxy.add(Rule.forHeads().inject(Fault.stallInHead(12)));
        ObjectSource source = source(s3, timeouts(s3, httpClient, proxy.endpoint(), 3, GENEROUS, GENEROUS,
                UNDER_TEST));
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        assertThat(info.size()).isEqualTo(1000);
        assertThat(stall.injected()).isEqualTo(1);
        // The stalled HEAD was retried; a slow retry may itself be retried, so at least 2.
        assertThat(stall.matched()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void headsThatAlwaysStallFailNamingTheObjectTheEndpointAndTheSetting(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("head-stalls.bin"), 1000, 13);
        FaultProxy proxy = proxy(s3);
        Rule stall = proxy.add(Rule.forHeads().always().inject(Fault.stallInHead(12)));
        ObjectSource source = source(s3, timeouts(s3, "netty", proxy.endpoint(), 2, GENEROUS, GENEROUS,
                Duration.ofMillis(300)));
        assertThatThrownBy(() -> source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES)).cause()
                .isExactlyInstanceOf(BroadcastException.class)
                .hasMessageStartingWith("HEAD of s3://" + s3.bucket() + "/" + object.key() + " failed after 2 attempts")
                .hasMessageContaining("no complete response from " + proxy.endpoint() + " within 300 ms")
                .hasMessageContaining("raise headTimeout");
        assertThat(stall.injected()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"netty", "crt"})
    void aGetWhoseResponseNeverBeginsIsAbandonedAtTheFirstByteTimeoutAndRetried(String httpClient, S3Fixture s3)
            throws Exception {
        StoredObject object = s3.putRandom(s3.key("first-byte.bin"), (8L << 20) + 1, 14);
        FaultProxy proxy = proxy(s3);
        Rule stall = proxy.add(Rule.forGets().range("bytes=4194304-8388607").inject(Fault.stallInHead(0)));
        ObjectSource source = source(s3, timeouts(s3, httpClient, proxy.endpoint(), 3, GENEROUS, UNDER_TEST,
                GENEROUS));
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        Counting listener = new Counting();
        assertThat(sha256(fetchAll(source, info, listener))).isEqualTo(object.sha256());
        assertThat(stall.injected()).isEqualTo(1);
        // The faulted range was retried and no other was; not how often (a slow retry may be retried again).
        assertThat(listener.retries).contains(new PieceRun(4, 8));
        assertThat(listener.causes).allSatisfy(c -> assertThat(c).hasMessageContaining("bytes 4194304-8388607"));
        assertThat(listener.causes.get(0)).hasMessageContaining("stalled on attempt 1: no response")
                .hasMessageContaining("firstByteTimeout " + UNDER_TEST.toMillis() + " ms");
    }

    @Test
    void theVersionIdOfAVersionedObjectIsReported(S3Fixture s3) throws Exception {
        s3.assumeSupports(S3Feature.CREATE_BUCKET);
        try {
            s3.client().putBucketVersioning(b -> b.bucket(s3.bucket())
                    .versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        } catch (S3Exception e) {
            Assumptions.abort("the server does not do bucket versioning: " + e.getMessage());
        }
        String key = s3.key("versioned.bin");
        try {
            s3.putRandom(key, 1000, 15);
            String first = s3.client().headObject(b -> b.bucket(s3.bucket()).key(key)).versionId();
            Assumptions.assumeTrue(first != null && !first.isBlank(), "the server gives no version ids");
            s3.overwriteRandom(key, 1000, 16);
            ObjectInfo info = source(s3).head(s3.bucket(), key).get(1, TimeUnit.MINUTES);
            assertThat(info.versionId()).isPresent().get().isNotEqualTo(first);
            assertThat(info.versionId())
                    .contains(s3.client().headObject(b -> b.bucket(s3.bucket()).key(key)).versionId());
        } finally {
            // The fixture deletes its bucket after the test, which S3 refuses while old versions remain.
            s3.client().listObjectVersionsPaginator(b -> b.bucket(s3.bucket())).versions().forEach(v ->
                    s3.client().deleteObject(b -> b.bucket(s3.bucket()).key(v.key()).versionId(v.versionId())));
        }
    }

    @Test
    void retriesRunOutWithAClearError(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("doomed.bin"), 6L << 20, 5);
        FaultProxy proxy = proxy(s3);
        Rule always = proxy.add(Rule.forGets().withRange().always().inject(Fault.internalError()));
        ObjectSource source = source(s3, config(s3, proxy.endpoint(), 1, 3, Duration.ofSeconds(10)));
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        assertThatThrownBy(() -> fetchAll(source, info, SourceListener.NONE)).cause()
                .isExactlyInstanceOf(BroadcastException.class)
                .hasMessageStartingWith("bytes 0-4194303 of s3://" + s3.bucket() + "/" + object.key()
                        + " failed after 3 attempts: 500 InternalError");
        assertThat(always.injected()).isEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"netty", "crt"})
    void cancellingStopsEveryGetInFlight(String httpClient, S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("cancel.bin"), 16L << 20, 13);
        FaultProxy proxy = proxy(s3);
        Rule stall = proxy.add(Rule.forGets().withRange().always().inject(Fault.stallAfter(64 << 10)));
        ObjectSource source = source(s3, config(s3, httpClient, proxy.endpoint(), 3, 3, Duration.ofMinutes(5)));
        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
        AtomicInteger polls = new AtomicInteger();
        PieceQueue all = PieceQueue.ofRange(0, 16);
        Counting listener = new Counting();
        try (PieceStore store = PieceStore.create(dir.resolve("cancelled"), new PieceLayout(info.size(), PIECE))) {
            CompletableFuture<Void> f = source.fetch(info, max -> {
                polls.incrementAndGet();
                return all.poll(max);
            }, store, listener);
            assertThat(stall.awaitInjected(3, Duration.ofSeconds(30))).isTrue();
            int open = proxy.openConnections();
            assertThat(open).isGreaterThanOrEqualTo(3);
            f.cancel(true);
            assertThat(f).isCancelled();
            assertThatThrownBy(f::join).isInstanceOf(CancellationException.class);
            long bytesAtCancel = listener.bytes.get();
            long sentAtCancel = proxy.stats().bytesToClient();
            // End the stalls. Were the GETs still alive, the rest of their bodies would now flow to the
            // listener and their connections stay open for reuse; cancelled, their connections are closed,
            // the proxy's writes fail and it drops them.
            stall.disable();
            stall.release();
            await(() -> proxy.openConnections() <= open - 3, Duration.ofSeconds(30));
            assertThat(listener.bytes.get()).isEqualTo(bytesAtCancel);
            assertThat(proxy.stats().bytesToClient() - sentAtCancel).as("bytes sent after the cancel")
                    .isLessThan(3L * RANGE);
            assertThat(polls).hasValue(3);
            assertThat(proxy.stats().requests()).isLessThanOrEqualTo(4); // the HEAD and the three GETs
        }
    }

    static void await(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within %s", timeout).isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    static String sha256(Path file) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** Counts what the source reports. */
    static final class Counting implements SourceListener {
        final AtomicLong bytes = new AtomicLong();
        final AtomicInteger pieces = new AtomicInteger();
        final List<PieceRun> retries = Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> causes = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void bytesReceived(long n) {
            bytes.addAndGet(n);
        }

        @Override
        public void pieceStored(int piece) {
            pieces.incrementAndGet();
        }

        @Override
        public void retrying(PieceRun run, int attempt, long delayMillis, Throwable cause) {
            retries.add(run);
            causes.add(cause);
        }
    }
}
