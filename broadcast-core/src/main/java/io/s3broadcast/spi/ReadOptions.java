package io.s3broadcast.spi;

import java.util.Arrays;
import java.util.Optional;

/**
 * Options every S3 request of one fetch carries, the HEAD and each ranged GET alike: which version, whose
 * bucket it must be, who pays, and the customer-provided encryption key (SSE-C) the object was written with.
 *
 * @param versionId the version to read; empty for the current one
 * @param expectedBucketOwner the account id the bucket must belong to (S3 answers 403 otherwise); empty for any
 * @param requesterPays whether this reader accepts the charges of a requester-pays bucket
 * @param sseCustomerKey the 256-bit AES key of an object stored with SSE-C (sent as
 *     {@code x-amz-server-side-encryption-customer-*} headers); empty for other objects
 */
public record ReadOptions(Optional<String> versionId, Optional<String> expectedBucketOwner, boolean requesterPays,
        Optional<byte[]> sseCustomerKey) {

    /** No options: the current version, any owner, the owner pays, no customer key. */
    public static final ReadOptions NONE = new ReadOptions(Optional.empty(), Optional.empty(), false, Optional.empty());

    public ReadOptions {
        versionId = versionId == null ? Optional.empty() : versionId;
        expectedBucketOwner = expectedBucketOwner == null ? Optional.empty() : expectedBucketOwner;
        sseCustomerKey = sseCustomerKey == null ? Optional.empty() : sseCustomerKey.map(byte[]::clone);
        sseCustomerKey.ifPresent(k -> {
            if (k.length != 32) {
                throw new IllegalArgumentException("an SSE-C key is 32 bytes (AES-256), this one has " + k.length);
            }
        });
    }

    public boolean isNone() {
        return equals(NONE);
    }

    @Override
    public Optional<byte[]> sseCustomerKey() {
        return sseCustomerKey.map(byte[]::clone);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReadOptions r && versionId.equals(r.versionId)
                && expectedBucketOwner.equals(r.expectedBucketOwner) && requesterPays == r.requesterPays
                && Arrays.equals(sseCustomerKey.orElse(null), r.sseCustomerKey.orElse(null));
    }

    @Override
    public int hashCode() {
        return versionId.hashCode() * 31 + expectedBucketOwner.hashCode() + (requesterPays ? 1 : 0)
                + Arrays.hashCode(sseCustomerKey.orElse(null));
    }

    /** Never shows the key. */
    @Override
    public String toString() {
        return "ReadOptions[" + versionId.map(v -> "versionId=" + v + " ").orElse("")
                + expectedBucketOwner.map(o -> "expectedBucketOwner=" + o + " ").orElse("")
                + (requesterPays ? "requesterPays " : "") + (sseCustomerKey.isPresent() ? "SSE-C" : "") + "]";
    }
}
