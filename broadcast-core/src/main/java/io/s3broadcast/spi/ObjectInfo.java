package io.s3broadcast.spi;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import java.util.Objects;
import java.util.Optional;

/**
 * What one HEAD told us about an object: its size, its ETag (every ranged read is pinned to it with
 * {@code If-Match}), S3's checksum when the object has one, the version id S3 gave when the bucket is
 * versioned, and what its ETag digests when that is known. A fetch is a snapshot of the object as this HEAD
 * saw it.
 *
 * @param versionId the {@code x-amz-version-id} the HEAD returned; empty for an unversioned bucket or a
 *     server that does not tell
 * @param eTagDigest the ETag as a digest of the bytes, when it is one: for a single-part upload the MD5 of
 *     the object, for a multipart upload the MD5 of the concatenated MD5s of its parts, {@code -N} appended
 *     (an {@link ObjectChecksum} of algorithm {@code MD5} whose value is the ETag's lower-case hex, with the
 *     part sizes); empty for SSE-KMS and SSE-C objects, whose ETags are not digests, and when the part sizes
 *     of a multipart upload are unknown
 * @param options what every request for this object carries (version, expected owner, requester pays, SSE-C
 *     key); the ranged GETs of every node read with them
 * @param metadata content type, last-modified time and user metadata, as the HEAD returned them
 */
public record ObjectInfo(String bucket, String key, long size, String eTag, Optional<ObjectChecksum> checksum,
        Optional<String> versionId, Optional<ObjectChecksum> eTagDigest, ReadOptions options, ObjectMetadata metadata) {

    private static final Pattern DIGEST_ETAG = Pattern.compile("\"?([0-9a-fA-F]{32})(?:-([1-9][0-9]{0,4}))?\"?");

    public ObjectInfo {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(eTag, "eTag");
        Objects.requireNonNull(checksum, "checksum");
        Objects.requireNonNull(versionId, "versionId");
        Objects.requireNonNull(eTagDigest, "eTagDigest");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(metadata, "metadata");
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0, was " + size);
        }
    }

    /** An object read with {@code options}, without metadata. */
    public ObjectInfo(String bucket, String key, long size, String eTag, Optional<ObjectChecksum> checksum,
            Optional<String> versionId, Optional<ObjectChecksum> eTagDigest, ReadOptions options) {
        this(bucket, key, size, eTag, checksum, versionId, eTagDigest, options, ObjectMetadata.NONE);
    }

    /** An object read without {@link ReadOptions}. */
    public ObjectInfo(String bucket, String key, long size, String eTag, Optional<ObjectChecksum> checksum,
            Optional<String> versionId, Optional<ObjectChecksum> eTagDigest) {
        this(bucket, key, size, eTag, checksum, versionId, eTagDigest, ReadOptions.NONE);
    }

    /** An object without a version id, whose ETag is not known to be a digest. */
    public ObjectInfo(String bucket, String key, long size, String eTag, Optional<ObjectChecksum> checksum) {
        this(bucket, key, size, eTag, checksum, Optional.empty(), Optional.empty());
    }

    /** An object whose ETag is not known to be a digest. */
    public ObjectInfo(String bucket, String key, long size, String eTag, Optional<ObjectChecksum> checksum,
            Optional<String> versionId) {
        this(bucket, key, size, eTag, checksum, versionId, Optional.empty());
    }

    /**
     * The number of parts a multipart ETag ({@code "<32 hex>-N"}) names, 0 for a single-part one
     * ({@code "<32 hex>"}), or -1 when the ETag has neither form.
     */
    public static int eTagParts(String eTag) {
        Matcher m = DIGEST_ETAG.matcher(eTag == null ? "" : eTag.trim());
        if (!m.matches()) {
            return -1;
        }
        return m.group(2) == null ? 0 : Integer.parseInt(m.group(2));
    }

    /**
     * What an ETag digests: the object's MD5 for a single-part upload; for a multipart upload of parts of
     * {@code partSizes}, the MD5 of its parts' MD5s. Empty when {@code encryptedWithKmsOrCustomerKey} (those
     * ETags are not digests), when the ETag has neither form, or when a multipart ETag's part sizes are not
     * given or do not match its part count.
     */
    public static Optional<ObjectChecksum> eTagDigest(String eTag, boolean encryptedWithKmsOrCustomerKey,
            List<Long> partSizes) {
        int parts = eTagParts(eTag);
        if (encryptedWithKmsOrCustomerKey || parts < 0 || parts > 0 && (partSizes == null || partSizes.size() != parts)) {
            return Optional.empty();
        }
        String value = eTag.trim().replace("\"", "").toLowerCase(Locale.ROOT);
        return Optional.of(parts == 0 ? ObjectChecksum.fullObject("MD5", value) : new ObjectChecksum("MD5", value, false, partSizes));
    }
}
