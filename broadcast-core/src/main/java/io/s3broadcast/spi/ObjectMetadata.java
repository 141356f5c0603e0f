package io.s3broadcast.spi;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What S3 says about an object besides its bytes, from the HEAD that starts a fetch.
 *
 * @param contentType the {@code Content-Type} it was stored with; empty when S3 gave none
 * @param lastModified when the version fetched was written; empty when S3 gave no time
 * @param userMetadata the {@code x-amz-meta-*} pairs, names without the prefix
 */
public record ObjectMetadata(Optional<String> contentType, Optional<Instant> lastModified, Map<String, String> userMetadata) {

    public static final ObjectMetadata NONE = new ObjectMetadata(Optional.empty(), Optional.empty(), Map.of());

    public ObjectMetadata {
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(lastModified, "lastModified");
        userMetadata = Map.copyOf(userMetadata);
    }
}
