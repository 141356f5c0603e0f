package io.s3broadcast.spi;

import java.util.List;
import java.util.Objects;

/**
 * A checksum S3 stores for an object, as HEAD returns it with checksum mode enabled.
 *
 * @param algorithm S3's name for it: {@code CRC32}, {@code CRC32C}, {@code CRC64NVME}, {@code SHA1}, {@code SHA256};
 *     {@code MD5} for an ETag that is a digest ({@link ObjectInfo#eTagDigest()})
 * @param base64Value the value as S3 sends it (base64; a composite checksum ends with {@code -N}); for
 *     {@code MD5}, the ETag's hex digits (with {@code -N} for a multipart upload)
 * @param fullObject true when S3 says {@code FULL_OBJECT} (a checksum of the whole byte stream), false for
 *     {@code COMPOSITE} (the checksum of the concatenated checksums of the multipart upload's parts)
 * @param partSizes for a composite checksum, the size of each part in order (they decide the part
 *     boundaries the checksum depends on); empty for a full-object checksum
 */
public record ObjectChecksum(String algorithm, String base64Value, boolean fullObject, List<Long> partSizes) {

    public ObjectChecksum {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(base64Value, "base64Value");
        partSizes = List.copyOf(partSizes);
        if (!fullObject && partSizes.isEmpty()) {
            throw new IllegalArgumentException("a composite checksum needs the part sizes to be checked");
        }
    }

    public static ObjectChecksum fullObject(String algorithm, String base64Value) {
        return new ObjectChecksum(algorithm, base64Value, true, List.of());
    }
}
