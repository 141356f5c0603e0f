package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ReadOptions;
import io.s3broadcast.spi.SourceListener;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * The failure of a read that got 412: what the object is now, from one HEAD. Every HEAD here answers at once; the
 * bound on a HEAD that never answers is the JDK's timer, not tested here.
 */
class ChangedObjectTest {

    static final String ETAG = "\"0123abcd\"";
    static final Duration FIRST_BYTE = Duration.ofSeconds(2);

    final FakeS3Client client = new FakeS3Client(new byte[0], ETAG, 256);
    final ManualScheduler scheduler = new ManualScheduler();
    final Throwable preconditionFailed = ((FakeS3Client.Fail) FakeS3Client.status(412, "PreconditionFailed")).error();

    ReadContext context(ObjectInfo object) {
        return new ReadContext(client, object, null, SourceListener.NONE, scheduler, scheduler.ticker(), () -> 0.5,
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), 3, FIRST_BYTE, Duration.ofSeconds(5),
                null);
    }

    ObjectInfo object() {
        return new ObjectInfo("bkt", "dir/obj", 100, ETAG, Optional.empty());
    }

    BroadcastException.ObjectChanged failure(ObjectInfo object) {
        CompletableFuture<BroadcastException.ObjectChanged> f =
                ChangedObject.failure(context(object), "bytes 0-99", preconditionFailed);
        assertThat(f).isCompleted();
        return f.join();
    }

    @Test
    void namesTheETagTheFetchBeganAtAndTheOneTheObjectHasNow() {
        client.head = r -> CompletableFuture.completedFuture(
                HeadObjectResponse.builder().eTag("\"new\"").contentLength(99L).build());
        BroadcastException.ObjectChanged e = failure(object());
        assertThat(e).hasMessage("s3://bkt/dir/obj changed while it was being fetched: reading bytes 0-99 with "
                + "If-Match: " + ETAG + " got 412 PreconditionFailed: PreconditionFailed from the fake; the object was "
                + "replaced (it now has ETag \"new\", 99 bytes), fetch again to get the new version")
                .hasCause(preconditionFailed);
    }

    @Test
    void theHeadIsBoundedByTheFirstByteTimeoutAndAsksWithTheFetchsOptions() {
        client.head = r -> CompletableFuture.completedFuture(HeadObjectResponse.builder().eTag("\"new\"").build());
        ReadOptions owner = new ReadOptions(Optional.empty(), Optional.of("111122223333"), false, Optional.empty());
        failure(new ObjectInfo("bkt", "dir/obj", 100, ETAG, Optional.empty(), Optional.empty(), Optional.empty(),
                owner));
        assertThat(client.heads).singleElement().satisfies(h -> {
            assertThat(h.bucket()).isEqualTo("bkt");
            assertThat(h.key()).isEqualTo("dir/obj");
            assertThat(h.expectedBucketOwner()).isEqualTo("111122223333");
            assertThat(h.overrideConfiguration()).hasValueSatisfying(c ->
                    assertThat(c.apiCallTimeout()).hasValue(FIRST_BYTE));
        });
    }

    @Test
    void aHeadThatFailsIsNamedInsteadOfTheNewETag() {
        client.head = r -> CompletableFuture.failedFuture(new IOException("Connection reset by peer"));
        assertThat(failure(object()).getMessage())
                .contains("(its new ETag could not be read: ")
                .contains("Connection reset by peer")
                .endsWith(", fetch again to get the new version");
    }

    @Test
    void aClientThatThrowsOnTheHeadIsNamedToo() {
        client.head = r -> {
            throw new IllegalStateException("client closed");
        };
        assertThat(failure(object()).getMessage()).contains("(its new ETag could not be read: ")
                .contains("client closed");
    }
}
