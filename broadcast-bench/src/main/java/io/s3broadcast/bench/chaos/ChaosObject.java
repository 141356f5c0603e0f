package io.s3broadcast.bench.chaos;

import java.util.Objects;

/**
 * An object on the chaos run's endpoint.
 *
 * @param bucket its bucket
 * @param key its key
 * @param eTag its ETag
 * @param size its size
 * @param sha256 hex SHA-256 of its bytes
 */
public record ChaosObject(String bucket, String key, String eTag, long size, String sha256) {

    public ChaosObject {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(eTag, "eTag");
        Objects.requireNonNull(sha256, "sha256");
    }
}
