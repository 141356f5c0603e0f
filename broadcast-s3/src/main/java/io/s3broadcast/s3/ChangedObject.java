package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;

/**
 * The failure of a read whose GET got 412 to its If-Match: the object was replaced after the fetch's HEAD. One
 * more HEAD, bounded by the first-byte timeout, reads what the object is now, so that the
 * {@link BroadcastException.ObjectChanged} names the ETag the fetch began at and the one the object has now (or
 * says why that could not be read).
 *
 * <p>Threads: called from any; the future completes on the client's thread, or on the JDK's timer thread when the
 * HEAD got no answer in time.
 */
final class ChangedObject {

    private ChangedObject() {
    }

    /** The failure of a read of {@code range} that got {@code cause}; the future completes with it, never fails. */
    static CompletableFuture<BroadcastException.ObjectChanged> failure(ReadContext ctx, String range, Throwable cause) {
        ObjectInfo o = ctx.object();
        Duration timeout = ctx.firstByteTimeout();
        CompletableFuture<String> now;
        try {
            now = ctx.client().headObject(S3ReadOptions.apply(HeadObjectRequest.builder().bucket(o.bucket())
                            .key(o.key()).overrideConfiguration(c -> c.apiCallTimeout(timeout)), o.options()).build())
                    .thenApply(h -> "it now has ETag " + h.eTag() + ", " + h.contentLength() + " bytes");
        } catch (RuntimeException e) {
            now = CompletableFuture.failedFuture(e);
        }
        return now.orTimeout(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS)
                .exceptionally(e -> "its new ETag could not be read: " + Failures.describe(Failures.unwrap(e)))
                .thenApply(text -> Failures.objectChanged(ctx.name(), range, o.eTag(), cause, text));
    }
}
