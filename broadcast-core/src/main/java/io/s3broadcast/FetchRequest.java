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

    private FetchRequest(Builder b) {
        this.bucket = requireText(b.bucket, "bucket");
        this.key = requireText(b.key, "key");
        this.destination = b.destination;
        this.strategy = b.strategy;
        this.listeners = List.copyOf(b.listeners);
        this.force = b.force;
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
        Builder b = new Builder().bucket(bucket).key(key).destination(destination).strategy(strategy).force(force);
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
     * and whose file is unchanged since, is not fetched again.
     */
    public boolean force() {
        return force;
    }

    /** Listeners for this request only, in addition to the broadcast's. */
    public List<FetchListener> listeners() {
        return listeners;
    }

    @Override
    public String toString() {
        return "FetchRequest[s3://" + bucket + "/" + key + (destination == null ? "" : " -> " + destination)
                + (strategy == null ? "" : ", " + strategy) + (force ? ", force" : "") + "]";
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

        public FetchRequest build() {
            return new FetchRequest(this);
        }
    }
}
