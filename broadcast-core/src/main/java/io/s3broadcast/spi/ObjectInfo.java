package io.s3broadcast.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * What one HEAD told us about an object: its size, its ETag (every ranged read is pinned to it with
 * {@code If-Match}) and S3's full-object checksum when the object has one.
 */
public record ObjectInfo(String bucket, String key, long size, String eTag, Optional<ObjectChecksum> checksum) {

    public ObjectInfo {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(eTag, "eTag");
        Objects.requireNonNull(checksum, "checksum");
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0, was " + size);
        }
    }
}
