package io.s3broadcast.registry;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * What a {@link NodeRegistryProvider} needs beyond the spec: the group, shared resources and timings.
 * Each registry uses the settings that apply to it. Build with {@link #builder(GroupId)}.
 */
public final class RegistryConfig {

    private final GroupId group;
    private final S3AsyncClient s3Client;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final Duration heartbeatInterval;
    private final Duration pollInterval;
    private final Duration staleAfter;
    private final Duration sessionTimeout;
    private final Duration operationTimeout;
    private final int manifestShards;

    private RegistryConfig(Builder b) {
        this.group = Objects.requireNonNull(b.group, "group");
        this.s3Client = b.s3Client;
        this.clock = Objects.requireNonNull(b.clock, "clock");
        this.scheduler = b.scheduler;
        this.heartbeatInterval = positive(b.heartbeatInterval, "heartbeatInterval");
        this.pollInterval = positive(b.pollInterval, "pollInterval");
        this.staleAfter = positive(b.staleAfter, "staleAfter");
        this.sessionTimeout = positive(b.sessionTimeout, "sessionTimeout");
        this.operationTimeout = positive(b.operationTimeout, "operationTimeout");
        if (b.manifestShards < 1 || b.manifestShards > 1024) {
            throw new IllegalArgumentException("manifestShards must be 1 to 1024, was " + b.manifestShards);
        }
        this.manifestShards = b.manifestShards;
        // plus, not multipliedBy(2), which initialises BigDecimal (~20 ms of a fresh JVM's CPU)
        if (staleAfter.compareTo(heartbeatInterval.plus(heartbeatInterval)) < 0) {
            throw new IllegalArgumentException("staleAfter (" + staleAfter + ") must be at least twice heartbeatInterval ("
                    + heartbeatInterval + "), or live nodes would look stale");
        }
    }

    public static Builder builder(GroupId group) {
        return new Builder(group);
    }

    public Builder toBuilder() {
        Builder b = new Builder(group);
        b.s3Client = s3Client;
        b.clock = clock;
        b.scheduler = scheduler;
        b.heartbeatInterval = heartbeatInterval;
        b.pollInterval = pollInterval;
        b.staleAfter = staleAfter;
        b.sessionTimeout = sessionTimeout;
        b.operationTimeout = operationTimeout;
        b.manifestShards = manifestShards;
        return b;
    }

    public GroupId group() {
        return group;
    }

    /** The S3 client for the {@code s3://} registry, owned by the caller; null to build one from the SDK's defaults. */
    public S3AsyncClient s3Client() {
        return s3Client;
    }

    /** Wall-clock time, for joined times and staleness. */
    public Clock clock() {
        return clock;
    }

    /** Runs heartbeats and polls, owned by the caller; null to let each registry own a one-thread scheduler. */
    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** How often a polling registry refreshes this node's entry. Default 10 s. */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /** How often a polling registry lists the group. Default 5 s. */
    public Duration pollInterval() {
        return pollInterval;
    }

    /** An entry not refreshed for this long is taken as gone. Default 35 s. */
    public Duration staleAfter() {
        return staleAfter;
    }

    /** ZooKeeper session timeout: how long after a crash its node disappears. Default 15 s. */
    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    /** Upper bound on one call to the store, and on connecting. Default 30 s. */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /**
     * How many manifest objects the {@code s3://} registry spreads a group's entries over (by hash of node id), so
     * that concurrent writes contend little; every node reads all of them each poll. It must be the same on every
     * node of a group. Default 4; see docs/scale.md for larger fleets.
     */
    public int manifestShards() {
        return manifestShards;
    }

    private static Duration positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be > 0, was " + d);
        }
        return d;
    }

    /** Builds a {@link RegistryConfig}; every setting but the group has a default. */
    public static final class Builder {
        private final GroupId group;
        private S3AsyncClient s3Client;
        private Clock clock = Clock.systemUTC();
        private ScheduledExecutorService scheduler;
        private Duration heartbeatInterval = Duration.ofSeconds(10);
        private Duration pollInterval = Duration.ofSeconds(5);
        private Duration staleAfter = Duration.ofSeconds(35);
        private Duration sessionTimeout = Duration.ofSeconds(15);
        private Duration operationTimeout = Duration.ofSeconds(30);
        private int manifestShards = 4;

        private Builder(GroupId group) {
            this.group = Objects.requireNonNull(group, "group");
        }

        public Builder s3Client(S3AsyncClient s3Client) {
            this.s3Client = s3Client;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        public Builder staleAfter(Duration staleAfter) {
            this.staleAfter = staleAfter;
            return this;
        }

        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
            return this;
        }

        public Builder operationTimeout(Duration operationTimeout) {
            this.operationTimeout = operationTimeout;
            return this;
        }

        public Builder manifestShards(int manifestShards) {
            this.manifestShards = manifestShards;
            return this;
        }

        public RegistryConfig build() {
            return new RegistryConfig(this);
        }
    }
}
