package io.s3broadcast.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * What one HEAD told us about an object: its size, its ETag (every ranged read is pinned to it with
 * {@code If-Match}), S3's full-object checksum when it has one, and the version id S3 gave when the bucket
 * is versioned. A fetch is a snapshot of the object as this HEAD saw it.
 *
 * @param versionId the {@code x-amz-version-id} the HEAD returned; empty for an unversioned bucket or a
 *     server that does not tell
 */
public record ObjectInfo(String bucket, String key, long size, String eTag, Optional<ObjectChecksum> checksum,
        Optional<String> versionId) {

    public ObjectInfo {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(eTag, "eTag");
        Objects.requireNonNull(checksum, "checksum");
        Objects.requireNonNull(versionId, "versionId");
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0, was " + size);
        }
    }

    /** An object without a version id. */
    public ObjectInfo(String bucket, String key, long size, String eTag, Optional<ObjectChecksum> checksum) {
        this(bucket, key, size, eTag, checksum, Optional.empty());
    }
}
