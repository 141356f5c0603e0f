package io.s3broadcast.spi;

import java.util.concurrent.CompletableFuture;

/**
 * Reads an object's pieces from where it lives (S3). Implementations are found through
 * {@link ObjectSourceProvider}; the S3 one is in the {@code broadcast-s3} module.
 *
 * <p>Methods never throw: failures complete the returned future exceptionally with a
 * {@link io.s3broadcast.BroadcastException} naming bucket, key and, where it applies, the byte range.
 * Cancelling a returned future cancels the requests in flight.
 */
public interface ObjectSource extends AutoCloseable {

    /** One HEAD: size, ETag and full-object checksum when the object has one. */
    CompletableFuture<ObjectInfo> head(String bucket, String key);

    /**
     * As {@link #head(String, String)}, and with {@code eTagDigest} also what a multipart ETag digests
     * ({@link ObjectInfo#eTagDigest()}), which needs the part sizes (more requests): a cluster broadcast binds
     * the pieces it took from peers to it. By default the same as {@link #head(String, String)}.
     */
    default CompletableFuture<ObjectInfo> head(String bucket, String key, boolean eTagDigest) {
        return head(bucket, key);
    }

    /**
     * As {@link #head(String, String, boolean)}, the HEAD carrying {@code options}; the returned info carries them
     * on to every ranged GET. A source that knows no options fails for any but {@link ReadOptions#NONE}.
     */
    default CompletableFuture<ObjectInfo> head(String bucket, String key, boolean eTagDigest, ReadOptions options) {
        if (options.isNone()) {
            return head(bucket, key, eTagDigest);
        }
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getName() + " cannot read with " + options));
    }

    /**
     * Fetches the runs {@code pieces} hands out into {@code store}, many at a time, each read pinned to
     * {@code object}'s ETag, recording every piece's CRC32C in the store as it lands. Completes when the
     * queue is empty and every run taken from it is stored.
     */
    CompletableFuture<Void> fetch(ObjectInfo object, PieceQueue pieces, PieceStore store, SourceListener listener);

    /**
     * As {@link #fetch(ObjectInfo, PieceQueue, PieceStore, SourceListener)}, reading with {@code reads}: at most
     * that many ranged GETs at once (never more than the source's own limit), each at most that many bytes. By
     * default the source's own connections and range size.
     */
    default CompletableFuture<Void> fetch(ObjectInfo object, PieceQueue pieces, PieceStore store, SourceListener listener,
            RangeReads reads) {
        return fetch(object, pieces, store, listener);
    }

    /**
     * Reads {@code length} bytes of {@code object} at {@code offset}, pinned to its ETag, into a new buffer
     * (a small read: a spot check compares a sample of the bytes peers gave with S3's). By default not
     * supported: the future fails with {@link UnsupportedOperationException}.
     */
    default CompletableFuture<java.nio.ByteBuffer> read(ObjectInfo object, long offset, int length) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getName() + " cannot read a byte range on its own"));
    }

    /** The S3 client this source reads with, for components that share it (an {@code s3://} registry). */
    default java.util.Optional<software.amazon.awssdk.services.s3.S3AsyncClient> client() {
        return java.util.Optional.empty();
    }

    @Override
    void close();
}
