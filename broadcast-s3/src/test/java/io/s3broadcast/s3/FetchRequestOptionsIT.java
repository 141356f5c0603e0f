package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.Broadcast;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.SeededData;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import io.s3broadcast.testkit.proxy.Fault;
import io.s3broadcast.testkit.proxy.FaultProxy;
import io.s3broadcast.testkit.proxy.Rule;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * FetchRequest's S3 options against a real server: each must reach the HEAD and every ranged GET. Where the
 * backend does not implement the feature (S3Proxy: versioning, SSE-C, bucket owners) the test is skipped with
 * the reason; LocalStack runs them.
 */
@RealS3
class FetchRequestOptionsIT {

    /** Several ranges, so the options must be on every GET, not only the first. */
    private static final long SIZE = 5L << 20;

    @TempDir
    Path dir;

    private Broadcast broadcast(S3Fixture s3) {
        return s3.broadcastBuilder().destinationDirectory(dir).rangeSize(1 << 20).build();
    }

    @Test
    void anOlderVersionById(S3Fixture s3) {
        try {
            s3.client().putBucketVersioning(b -> b.bucket(s3.bucket())
                    .versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        } catch (S3Exception e) {
            Assumptions.abort("backend " + s3.server().name() + " does not do bucket versioning: " + e.getMessage());
        }
        String key = s3.key("versioned.bin");
        StoredObject first = s3.putRandom(key, SIZE, 1);
        String v1 = s3.client().headObject(b -> b.bucket(s3.bucket()).key(key)).versionId();
        Assumptions.assumeTrue(v1 != null && !v1.equals("null"), "backend gave no version id");
        s3.putRandom(key, SIZE, 2);
        try (Broadcast b = broadcast(s3)) {
            CompletedFetch old = b.fetch(r -> r.bucket(s3.bucket()).key(key).versionId(v1)).join();
            assertThat(old.versionId()).contains(v1);
            assertThat(TestCluster.sha256(old.path())).isEqualTo(first.sha256());
            CompletedFetch current = b.fetch(r -> r.bucket(s3.bucket()).key(key).destination(dir.resolve("now"))).join();
            assertThat(TestCluster.sha256(current.path())).isEqualTo(SeededData.sha256Hex(2, SIZE));
        } finally {
            // Versions keep the bucket from being deleted: remove them all.
            s3.client().listObjectVersionsPaginator(b -> b.bucket(s3.bucket())).versions()
                    .forEach(v -> s3.client().deleteObject(d -> d.bucket(s3.bucket()).key(v.key()).versionId(v.versionId())));
        }
    }

    @Test
    void anSseCObjectWithItsKey(S3Fixture s3) throws Exception {
        byte[] key = SeededData.bytes(7, 0, 32);
        String objectKey = s3.key("sse-c.bin");
        byte[] body = SeededData.bytes(3, 0, (int) SIZE);
        String keyMd5 = Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(key));
        try {
            s3.client().putObject(b -> b.bucket(s3.bucket()).key(objectKey).sseCustomerAlgorithm("AES256")
                    .sseCustomerKey(Base64.getEncoder().encodeToString(key))
                    .sseCustomerKeyMD5(keyMd5),
                    RequestBody.fromBytes(body));
        } catch (SdkException e) { // S3Proxy closes the connection on the SSE-C headers
            Assumptions.abort("backend " + s3.server().name() + " does not take SSE-C: " + e.getMessage());
        }
        boolean enforced;
        try {
            s3.client().headObject(b -> b.bucket(s3.bucket()).key(objectKey));
            enforced = false;
        } catch (S3Exception e) {
            enforced = true;
        }
        Assumptions.assumeTrue(enforced, "backend " + s3.server().name() + " serves SSE-C objects without the key");
        try (Broadcast b = broadcast(s3)) {
            CompletedFetch done = b.fetch(r -> r.bucket(s3.bucket()).key(objectKey).sseCustomerKey(key)).join();
            assertThat(TestCluster.sha256(done.path())).isEqualTo(SeededData.sha256Hex(3, SIZE));
            assertThatThrownBy(() -> b.fetch(r -> r.bucket(s3.bucket()).key(objectKey).destination(dir.resolve("x"))
                    .force(true)).join()).isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(BroadcastException.class);
        }
    }

    @Test
    void aBucketOfAnotherOwnerIsRefused(S3Fixture s3) {
        StoredObject object = s3.putRandom(s3.key("owned.bin"), SIZE, 4);
        boolean enforced;
        try {
            s3.client().headObject(b -> b.bucket(s3.bucket()).key(object.key()).expectedBucketOwner("111122223333"));
            enforced = false;
        } catch (S3Exception e) {
            enforced = e.statusCode() == 403;
        }
        Assumptions.assumeTrue(enforced, "backend " + s3.server().name() + " does not check x-amz-expected-bucket-owner");
        try (Broadcast b = broadcast(s3)) {
            assertThatThrownBy(() -> b.fetch(r -> r.bucket(s3.bucket()).key(object.key())
                    .expectedBucketOwner("111122223333")).join())
                    .isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(BroadcastException.AccessDenied.class);
        }
    }

    /**
     * Neither test server checks bucket owners, so a proxy in front of the real one plays S3's part: it refuses
     * every request that names another owner. The fetch that names it fails as access denied (the header is on
     * the HEAD), one that names none succeeds through the same proxy; with the refusal only on GETs, the header
     * must be on every ranged GET too.
     */
    @Test
    void theExpectedOwnerReachesEveryRequest(S3Fixture s3) throws Exception {
        StoredObject object = s3.putRandom(s3.key("owner.bin"), SIZE, 6);
        FaultProxy proxy = s3.closeAfterTest(FaultProxy.start(
                new InetSocketAddress("127.0.0.1", s3.endpoint().getPort())));
        Rule refuseOthers = Rule.matching(h -> h.header("x-amz-expected-bucket-owner").filter("999999999999"::equals)
                        .isPresent())
                .inject(Fault.status(403, "AccessDenied", "Access Denied"));
        proxy.add(refuseOthers);
        try (Broadcast b = s3.broadcastBuilder().endpoint(proxy.endpoint()).destinationDirectory(dir)
                .rangeSize(1 << 20).build()) {
            assertThatThrownBy(() -> b.fetch(r -> r.bucket(s3.bucket()).key(object.key())
                    .expectedBucketOwner("999999999999")).join())
                    .isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(BroadcastException.AccessDenied.class);
            CompletedFetch plain = b.fetch(r -> r.bucket(s3.bucket()).key(object.key()).force(true)).join();
            assertThat(TestCluster.sha256(plain.path())).isEqualTo(object.sha256());

            proxy.remove(refuseOthers);
            proxy.add(Rule.forGets().where(h -> h.header("x-amz-expected-bucket-owner").isEmpty())
                    .inject(Fault.status(403, "AccessDenied", "a GET without the expected owner")));
            CompletedFetch owned = b.fetch(r -> r.bucket(s3.bucket()).key(object.key()).force(true)
                    .expectedBucketOwner("111122223333")).join();
            assertThat(TestCluster.sha256(owned.path())).isEqualTo(object.sha256());
        }
    }

    @Test
    void requesterPaysAndTheRightOwnerFetchAsUsual(S3Fixture s3) {
        StoredObject object = s3.putRandom(s3.key("paid.bin"), SIZE, 5);
        try (Broadcast b = broadcast(s3)) {
            CompletedFetch done = b.fetch(r -> r.bucket(s3.bucket()).key(object.key()).requesterPays(true)).join();
            assertThat(TestCluster.sha256(done.path())).isEqualTo(object.sha256());
        }
    }

    @Test
    void anSseCKeyOfTheWrongLengthFailsAtBuild() {
        assertThatThrownBy(() -> io.s3broadcast.FetchRequest.of(r -> r.bucket("b").key("k").sseCustomerKey(new byte[16])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("32-byte");
    }
}
