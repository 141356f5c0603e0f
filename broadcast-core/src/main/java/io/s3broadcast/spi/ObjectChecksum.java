package io.s3broadcast.spi;

import java.util.Objects;

/**
 * A checksum S3 stores for an object, as HEAD returns it with checksum mode enabled.
 *
 * @param algorithm S3's name for it: {@code CRC32}, {@code CRC32C}, {@code CRC64NVME}, {@code SHA1}, {@code SHA256}
 * @param base64Value the value as S3 sends it (base64; a composite checksum ends with {@code -N})
 * @param fullObject true when S3 says {@code FULL_OBJECT} (a checksum of the whole byte stream), false for
 *     {@code COMPOSITE} (a checksum of the parts' checksums, which depends on the part boundaries)
 */
public record ObjectChecksum(String algorithm, String base64Value, boolean fullObject) {

    public ObjectChecksum {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(base64Value, "base64Value");
    }
}
