package io.s3broadcast.spi;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Settings for an {@link ObjectSource}, resolved by {@code Broadcast.builder()} from explicit values,
 * system properties, environment variables and defaults.
 *
 * @param client a client to use as is (the caller owns it), or null to build one from the next fields
 * @param endpoint S3 endpoint override, or null for AWS
 * @param region region, or null for the SDK's default chain
 * @param credentials credentials, or null for the SDK's default chain
 * @param pathStyle path-style addressing (needed by most S3-compatible servers)
 * @param httpClient which SDK HTTP client to build: {@code netty}, {@code crt}, or {@code auto} (CRT when it is on the
 *     class path and its native library loads, else Netty)
 * @param connections concurrent ranged GETs per node
 * @param rangeSize bytes per ranged GET (rounded to whole pieces)
 * @param maxAttempts attempts per range before the fetch fails
 * @param initialBackoff first retry delay; doubles each attempt, with full jitter
 * @param maxBackoff cap on the retry delay
 * @param stallTimeout a response body that delivers no byte for this long is abandoned and retried
 * @param firstByteTimeout a ranged GET whose response has not begun (status line and headers) this long after it
 *     was sent is abandoned and retried
 * @param headTimeout limit on each attempt of a metadata request (the HEAD, and the part-size requests that may
 *     follow it); an attempt that runs out is retried like any transient failure
 */
public record SourceConfig(
        S3AsyncClient client,
        URI endpoint,
        Region region,
        AwsCredentialsProvider credentials,
        boolean pathStyle,
        String httpClient,
        int connections,
        long rangeSize,
        int maxAttempts,
        Duration initialBackoff,
        Duration maxBackoff,
        Duration stallTimeout,
        Duration firstByteTimeout,
        Duration headTimeout) {

    public SourceConfig {
        Objects.requireNonNull(httpClient, "httpClient");
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        requirePositive(stallTimeout, "stallTimeout");
        requirePositive(firstByteTimeout, "firstByteTimeout");
        requirePositive(headTimeout, "headTimeout");
        if (connections <= 0) {
            throw new IllegalArgumentException("connections must be > 0, was " + connections);
        }
        if (rangeSize <= 0) {
            throw new IllegalArgumentException("rangeSize must be > 0, was " + rangeSize);
        }
        if (maxAttempts <= 0) {
            throw new IllegalArgumentException("maxAttempts must be > 0, was " + maxAttempts);
        }
    }

    private static void requirePositive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, was " + d);
        }
    }
}
