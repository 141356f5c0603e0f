package io.s3broadcast;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What to fetch and where to put it. Immutable; build with {@link #builder()}, or {@link #of(String, String)}
 * for the defaults.
 *
 * <p>Unset values fall back to the {@link Broadcast}'s: the destination is then the broadcast's destination
 * directory joined with the last segment of the key.
 */
public final class FetchRequest {

    private final String bucket;
    private final String key;
    private final Path destination;
    private final Strategy strategy;
    private final List<FetchListener> listeners;
    private final boolean force;
    private final String versionId;
    private final String expectedBucketOwner;
    private final boolean requesterPays;
    private final byte[] sseCustomerKey;

    private FetchRequest(Builder b) {
        this.bucket = requireText(b.bucket, "bucket");
        this.key = requireText(b.key, "key");
        this.destination = b.destination;
        this.strategy = b.strategy;
        this.listeners = List.copyOf(b.listeners);
        this.force = b.force;
        this.versionId = b.versionId;
        this.expectedBucketOwner = b.expectedBucketOwner;
        this.requesterPays = b.requesterPays;
        this.sseCustomerKey = b.sseCustomerKey;
        if (sseCustomerKey != null && sseCustomerKey.length != 32) {
            throw new IllegalArgumentException("FetchRequest.sseCustomerKey must be a 32-byte AES-256 key, this one has "
                    + sseCustomerKey.length + " bytes: pass the key the object was written with");
        }
    }

    public static FetchRequest of(String bucket, String key) {
        return builder().bucket(bucket).key(key).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A request built by {@code request}, the SDK's {@code Consumer<Builder>} style. */
    public static FetchRequest of(Consumer<Builder> request) {
        Builder b = builder();
        request.accept(b);
        return b.build();
    }

    public Builder toBuilder() {
        Builder b = new Builder().bucket(bucket).key(key).destination(destination).strategy(strategy).force(force)
                .versionId(versionId).expectedBucketOwner(expectedBucketOwner).requesterPays(requesterPays)
                .sseCustomerKey(sseCustomerKey);
        listeners.forEach(b::addListener);
        return b;
    }

    public String bucket() {
        return bucket;
    }

    public String key() {
        return key;
    }

    /** The file to write, if set on this request. */
    public Optional<Path> destination() {
        return Optional.ofNullable(destination);
    }

    public Optional<Strategy> strategy() {
        return Optional.ofNullable(strategy);
    }

    /**
     * Whether to fetch even when the destination already holds this object. Off by default: a destination
     * whose record (written beside it by an earlier fetch) matches the object's ETag, version id and size,
     * and whose file is unchanged since, is not fetched again. That skip is the flat tree's: with a cluster
     * strategy every node joins the broadcast and fetches (its share from S3, the rest from peers), so no node
     * waits out {@code expectTimeout} for one that skipped.
     */
    public boolean force() {
        return force;
    }

    /** The version to fetch; empty for the current one. */
    public Optional<String> versionId() {
        return Optional.ofNullable(versionId);
    }

    /** The account id the bucket must belong to (S3 refuses with 403 otherwise); empty for any owner. */
    public Optional<String> expectedBucketOwner() {
        return Optional.ofNullable(expectedBucketOwner);
    }

    /** Whether this reader accepts the charges of a requester-pays bucket. */
    public boolean requesterPays() {
        return requesterPays;
    }

    /** A copy of the SSE-C key the object was stored with; empty for objects without customer-provided encryption. */
    public Optional<byte[]> sseCustomerKey() {
        return Optional.ofNullable(sseCustomerKey).map(byte[]::clone);
    }

    /** Listeners for this request only, in addition to the broadcast's. */
    public List<FetchListener> listeners() {
        return listeners;
    }

    @Override
    public String toString() {
        return "FetchRequest[s3://" + bucket + "/" + key + (destination == null ? "" : " -> " + destination)
                + (strategy == null ? "" : ", " + strategy) + (force ? ", force" : "")
                + (versionId == null ? "" : ", versionId " + versionId)
                + (expectedBucketOwner == null ? "" : ", owner " + expectedBucketOwner)
                + (requesterPays ? ", requester pays" : "") + (sseCustomerKey == null ? "" : ", SSE-C") + "]";
    }

    private static String requireText(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("FetchRequest needs a " + name
                    + ": set it with FetchRequest.builder()." + name + "(...)");
        }
        return value;
    }

    public static final class Builder {
        private String bucket;
        private String key;
        private Path destination;
        private Strategy strategy;
        private final List<FetchListener> listeners = new ArrayList<>();
        private boolean force;
        private String versionId;
        private String expectedBucketOwner;
        private boolean requesterPays;
        private byte[] sseCustomerKey;

        private Builder() {
        }

        public Builder bucket(String bucket) {
            this.bucket = bucket;
            return this;
        }

        public Builder key(String key) {
            this.key = key;
            return this;
        }

        /** The file to write the object to; its directory is created if missing. */
        public Builder destination(Path destination) {
            this.destination = destination;
            return this;
        }

        public Builder strategy(Strategy strategy) {
            this.strategy = strategy;
            return this;
        }

        public Builder addListener(FetchListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** Fetch even when the destination already holds this object (see {@link FetchRequest#force()}). */
        public Builder force(boolean force) {
            this.force = force;
            return this;
        }

        /** Fetch this version of the object (a versioned bucket's {@code versionId}); default the current one. */
        public Builder versionId(String versionId) {
            this.versionId = versionId;
            return this;
        }

        /** Fail with 403 unless the bucket belongs to this account id (S3's {@code x-amz-expected-bucket-owner}). */
        public Builder expectedBucketOwner(String accountId) {
            this.expectedBucketOwner = accountId;
            return this;
        }

        /** Accept the charges of a requester-pays bucket ({@code x-amz-request-payer: requester}). */
        public Builder requesterPays(boolean requesterPays) {
            this.requesterPays = requesterPays;
            return this;
        }

        /** The 32-byte AES-256 key an SSE-C object was stored with; sent with the HEAD and every GET. */
        public Builder sseCustomerKey(byte[] key) {
            this.sseCustomerKey = key == null ? null : key.clone();
            return this;
        }

        public FetchRequest build() {
            return new FetchRequest(this);
        }
    }
}
