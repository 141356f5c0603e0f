package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.GetObjectAttributesParts;
import software.amazon.awssdk.services.s3.model.GetObjectAttributesResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectPart;

@Timeout(30)
class ObjectHeadTest {

    static final String ETAG = "\"abc-3\"";
    static final Duration HEAD_TIMEOUT = Duration.ofSeconds(30);

    final FakeS3Client client = new FakeS3Client(new byte[0], ETAG, 1);
    final ManualScheduler scheduler = new ManualScheduler();
    final ObjectHead head = new ObjectHead(client,
            new Retrier(scheduler, new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), () -> 0.5, 3,
                    HEAD_TIMEOUT, "http://s3.test"),
            HEAD_TIMEOUT, 2);

    static CompletableFuture<HeadObjectResponse> answer(HeadObjectResponse.Builder b) {
        return CompletableFuture.completedFuture(b.eTag(ETAG).build());
    }

    static <T> CompletableFuture<T> failure(int status, String code) {
        return CompletableFuture.failedFuture(((FakeS3Client.Fail) FakeS3Client.status(status, code)).error());
    }

    ObjectInfo run(CompletableFuture<ObjectInfo> f) throws Exception {
        scheduler.advance(Duration.ofMinutes(1));
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void sizeETagAndAFullObjectChecksum() throws Exception {
        client.head = r -> answer(HeadObjectResponse.builder().contentLength(1234L)
                .checksumCRC64NVME("AAAAAAAAAAA=").checksumType(ChecksumType.FULL_OBJECT));
        ObjectInfo info = run(head.head("b", "k"));
        assertThat(info).isEqualTo(new ObjectInfo("b", "k", 1234, ETAG,
                Optional.of(ObjectChecksum.fullObject("CRC64NVME", "AAAAAAAAAAA="))));
        assertThat(client.heads).singleElement().satisfies(r -> assertThat(r.checksumMode()).isEqualTo(ChecksumMode.ENABLED));
    }

    @Test
    void noChecksumLeavesItEmpty() throws Exception {
        client.head = r -> answer(HeadObjectResponse.builder().contentLength(5L));
        assertThat(run(head.head("b", "k")).checksum()).isEmpty();
    }

    @Test
    void compositeChecksumGetsPartSizesFromPagedObjectAttributes() throws Exception {
        client.head = r -> answer(HeadObjectResponse.builder().contentLength(25L)
                .checksumCRC32("AAAAAA==-3").checksumType(ChecksumType.COMPOSITE));
        List<Integer> markers = new ArrayList<>();
        client.attributes = r -> {
            markers.add(r.partNumberMarker());
            boolean first = r.partNumberMarker() == 0;
            List<ObjectPart> parts = first
                    ? List.of(ObjectPart.builder().partNumber(1).size(10L).build(),
                            ObjectPart.builder().partNumber(2).size(10L).build())
                    : List.of(ObjectPart.builder().partNumber(3).size(5L).build());
            return CompletableFuture.completedFuture(GetObjectAttributesResponse.builder().eTag("abc-3")
                    .objectParts(GetObjectAttributesParts.builder().totalPartsCount(3).parts(parts)
                            .isTruncated(first).nextPartNumberMarker(first ? 2 : null).build())
                    .build());
        };
        ObjectChecksum c = run(head.head("b", "k")).checksum().orElseThrow();
        assertThat(c.fullObject()).isFalse();
        assertThat(c.algorithm()).isEqualTo("CRC32");
        assertThat(c.base64Value()).isEqualTo("AAAAAA==-3");
        assertThat(c.partSizes()).containsExactly(10L, 10L, 5L);
        assertThat(markers).containsExactly(0, 2);
    }

    @Test
    void compositeChecksumFallsBackToHeadWithPartNumber() throws Exception {
        client.attributes = r -> failure(501, "NotImplemented");
        client.head = r -> {
            if (r.partNumber() == null) {
                return answer(HeadObjectResponse.builder().contentLength(25L).checksumCRC32C("AAAAAA==-3"));
            }
            assertThat(r.ifMatch()).isEqualTo(ETAG);
            return answer(HeadObjectResponse.builder().partsCount(3).contentLength(r.partNumber() == 3 ? 5L : 10L));
        };
        ObjectChecksum c = run(head.head("b", "k")).checksum().orElseThrow();
        assertThat(c.partSizes()).containsExactly(10L, 10L, 5L);
        assertThat(client.heads).hasSize(4);
    }

    @Test
    void compositeChecksumIsLeftOutWhenNoPartSizesCanBeHad() throws Exception {
        client.attributes = r -> failure(501, "NotImplemented");
        client.head = r -> r.partNumber() == null
                ? answer(HeadObjectResponse.builder().contentLength(25L).checksumCRC32C("AAAAAA==-3"))
                // A server that ignores partNumber: the whole object, no parts count.
                : answer(HeadObjectResponse.builder().contentLength(25L));
        ObjectInfo info = run(head.head("b", "k"));
        assertThat(info.size()).isEqualTo(25);
        assertThat(info.checksum()).isEmpty();
        assertThat(client.heads).hasSize(2);
    }

    @Test
    void partSizesThatDoNotAddUpAreNotTrusted() throws Exception {
        client.attributes = r -> CompletableFuture.completedFuture(GetObjectAttributesResponse.builder()
                .objectParts(GetObjectAttributesParts.builder().parts(ObjectPart.builder().partNumber(1).size(25L).build())
                        .build())
                .build());
        client.head = r -> r.partNumber() == null
                ? answer(HeadObjectResponse.builder().contentLength(26L).checksumSHA256("AAAA-1"))
                : failure(400, "InvalidArgument");
        assertThat(run(head.head("b", "k")).checksum()).isEmpty();
    }

    @Test
    void transientErrorsAreRetried() throws Exception {
        AtomicInteger n = new AtomicInteger();
        client.head = r -> n.incrementAndGet() < 3 ? failure(503, "SlowDown")
                : answer(HeadObjectResponse.builder().contentLength(1L));
        CompletableFuture<ObjectInfo> f = head.head("b", "k");
        assertThat(f).isNotDone();
        assertThat(run(f).size()).isEqualTo(1);
        assertThat(n).hasValue(3);
    }

    @Test
    void theVersionIdIsReportedWhenS3GivesOne() throws Exception {
        client.head = r -> answer(HeadObjectResponse.builder().contentLength(5L).versionId("3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY"));
        assertThat(run(head.head("b", "k")).versionId()).contains("3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY");
        client.head = r -> answer(HeadObjectResponse.builder().contentLength(5L));
        assertThat(run(head.head("b", "k")).versionId()).isEmpty();
    }

    @Test
    void aHeadThatNeverAnswersIsCancelledAtTheHeadTimeoutAndRetried() throws Exception {
        List<CompletableFuture<HeadObjectResponse>> sent = new ArrayList<>();
        client.head = r -> {
            if (sent.isEmpty()) {
                CompletableFuture<HeadObjectResponse> silent = new CompletableFuture<>();
                sent.add(silent);
                return silent;
            }
            return answer(HeadObjectResponse.builder().contentLength(7L));
        };
        CompletableFuture<ObjectInfo> f = head.head("b", "k");
        scheduler.advance(HEAD_TIMEOUT.minusMillis(1));
        assertThat(sent.get(0)).isNotDone();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(sent.get(0)).isCancelled();
        assertThat(run(f).size()).isEqualTo(7);
        assertThat(client.heads).hasSize(2);
    }

    @Test
    void headTimeoutsRunOutWithAnErrorNamingTheObjectTheServerAndTheSetting() {
        client.head = r -> new CompletableFuture<>();
        CompletableFuture<ObjectInfo> f = head.head("b", "k");
        scheduler.advance(Duration.ofMinutes(5));
        assertThatThrownBy(f::join).cause().isExactlyInstanceOf(BroadcastException.class)
                .hasMessageStartingWith("HEAD of s3://b/k failed after 3 attempts: ")
                .hasMessageContaining("got no complete response from http://s3.test within 30000 ms (attempt 3 of 3)")
                .hasMessageContaining("raise headTimeout (s3broadcast.headTimeout)");
        assertThat(client.heads).hasSize(3);
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void retriesRunOut() {
        client.head = r -> failure(500, "InternalError");
        CompletableFuture<ObjectInfo> f = head.head("b", "k");
        scheduler.advance(Duration.ofMinutes(1));
        assertThatThrownBy(f::join).cause().isExactlyInstanceOf(BroadcastException.class)
                .hasMessage("HEAD of s3://b/k failed after 3 attempts: 500 InternalError: InternalError from the fake");
    }

    @Test
    void notFoundSaysWhetherTheBucketOrTheKeyIsMissing() {
        client.head = r -> failure(404, "");
        client.headBucket = r -> failure(404, "");
        assertThatThrownBy(head.head("b", "k")::join).cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                .hasMessageStartingWith("bucket b does not exist");
        client.headBucket = r -> CompletableFuture.completedFuture(HeadBucketResponse.builder().build());
        assertThatThrownBy(head.head("b", "k")::join).cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                .hasMessageStartingWith("s3://b/k does not exist: bucket b has no key k");
        client.headBucket = r -> failure(403, "");
        assertThatThrownBy(head.head("b", "k")::join).cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                .hasMessageStartingWith("s3://b/k does not exist (no such key, or no such bucket)");
    }

    @Test
    void forbiddenIsAccessDeniedWithoutRetry() {
        AtomicInteger n = new AtomicInteger();
        client.head = r -> {
            n.incrementAndGet();
            return failure(403, "");
        };
        assertThatThrownBy(head.head("b", "k")::join).cause().isInstanceOf(BroadcastException.AccessDenied.class)
                .hasMessageContaining("s3:GetObject on arn:aws:s3:::b/k");
        assertThat(n).hasValue(1);
    }

    @Test
    void cancellingTheHeadCancelsTheRetryWaiting() {
        client.head = r -> failure(503, "SlowDown");
        CompletableFuture<ObjectInfo> f = head.head("b", "k");
        assertThat(scheduler.delays()).hasSize(1);
        f.cancel(true);
        assertThat(scheduler.delays()).isEmpty();
    }
}
