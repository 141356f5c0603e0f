/**
 * The S3 piece fetcher: an {@link io.s3broadcast.spi.ObjectSource} that learns an object with one HEAD and
 * reads it with many concurrent ranged GETs, each pinned to the HEAD's ETag with {@code If-Match} and each
 * covering a run of whole pieces. Bytes stream to their place in the {@link io.s3broadcast.spi.PieceStore}
 * with bounded demand, so memory does not grow with the object; each piece's CRC32C is computed on the way.
 *
 * <p>Failed ranges are retried, resuming at the first piece not yet stored, with exponential backoff and full
 * jitter: 5xx, {@code SlowDown}, throttling, connection errors, truncated bodies, and bodies that stall.
 * A 412 (the object was replaced) fails the fetch with
 * {@link io.s3broadcast.BroadcastException.ObjectChanged}; 403 and credential errors with
 * {@link io.s3broadcast.BroadcastException.AccessDenied}; 404 with
 * {@link io.s3broadcast.BroadcastException.ObjectNotFound}.
 *
 * <p>The only public type is {@link io.s3broadcast.s3.S3ObjectSourceProvider}, found by
 * {@link java.util.ServiceLoader}.
 */
package io.s3broadcast.s3;
