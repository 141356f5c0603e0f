package io.s3broadcast.registry;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Where the nodes of one broadcast group find each other: this node registers its address, lists the
 * members and watches them come and go.
 *
 * <p>Lifecycle: {@link #start()} connects and begins following the group, {@link #register} announces this
 * node, {@link #leave()} withdraws it, {@link #close()} leaves if needed and releases everything. A registry
 * is started and registered at most once. Methods that talk to a remote store block for at most the
 * registry's configured timeout and throw {@link RegistryException} when they fail.
 *
 * <p>Implementations extend {@link AbstractNodeRegistry} and are made by a {@link NodeRegistryProvider};
 * {@link #open(String, RegistryConfig)} picks one by the scheme of a {@link RegistrySpec}.
 */
public interface NodeRegistry extends AutoCloseable {

    /** The group this registry follows. */
    GroupId group();

    /** Connects and reads the current members; after it returns {@link #members()} is up to date. Idempotent. */
    void start();

    /**
     * Announces this node to the group and keeps it announced (heartbeats, re-registration after a lost
     * session) until {@link #leave()} or {@link #close()}.
     *
     * @return the identity under which the group knows this node: {@code self}, except for a static list,
     *     which answers with its own entry for this node
     * @throws IllegalStateException if not started, closed, or already registered as another node
     */
    NodeInfo register(NodeInfo self);

    /**
     * The group secret held with the registry's entries, so that whoever can read the registry can join and nobody
     * else: read if present, otherwise generated (32 random bytes) and created with a conditional write so that
     * racing first nodes agree on one, then read back. Empty when this registry cannot hold a secret (a static
     * list). Blocks like the other remote calls; call after {@link #start()}.
     */
    default java.util.Optional<byte[]> groupSecret() {
        return java.util.Optional.empty();
    }

    /**
     * Asks the registry to read the members again soon, for a registry that learns of changes by polling (one poll
     * now, in the background); does nothing for one that is told of changes. Never blocks; ignored before
     * {@link #start()} and after {@link #close()}. A node waiting for its group calls it so that it starts as soon as
     * the others have registered, not at the next poll.
     */
    default void pollNow() {
    }

    /**
     * Records that this node's broadcast has begun (its membership is fixed), in its own entry, so that a node that
     * registers later knows the group began without it ({@link #othersBegun()}), even when fewer than the expected
     * members are left by then (some left or crashed). Blocks like the other remote calls; does nothing when not
     * registered, or for a registry that keeps no such mark (a static list, which nobody joins late).
     */
    default void markBegun() {
    }

    /**
     * Whether a live member other than this node has marked its broadcast begun ({@link #markBegun()}), as of the
     * registry's last look; false for a registry that keeps no such mark. Never blocks.
     */
    default boolean othersBegun() {
        return false;
    }

    /** Withdraws this node from the group; the registry keeps following the group. Does nothing if not registered. */
    void leave();

    /** This node as registered, or empty before {@link #register} and after {@link #leave()}. */
    Optional<NodeInfo> self();

    /** The current members, this node included once registered, ordered by node id. */
    List<NodeInfo> members();

    /** Adds a listener; it first hears every current member join. Closing the returned watch removes it. */
    Watch watch(MembershipListener listener);

    /** Waits for {@code expected} members, up to {@code timeout}; see {@link Membership#awaitMembers}. */
    default CompletableFuture<Membership> awaitMembers(int expected, Duration timeout, ScheduledExecutorService scheduler) {
        return Membership.awaitMembers(this, expected, timeout, scheduler);
    }

    /** Leaves the group if registered, stops following it and releases what the registry owns. Idempotent. */
    @Override
    void close();

    /** Stops a listener added with {@link #watch}. */
    interface Watch extends AutoCloseable {
        @Override
        void close();
    }

    /** Parses {@code spec} and opens a registry for it; see {@link #open(RegistrySpec, RegistryConfig)}. */
    static NodeRegistry open(String spec, RegistryConfig config) {
        return open(RegistrySpec.parse(spec), config);
    }

    /**
     * Makes a registry for {@code spec} with the {@link NodeRegistryProvider} of its scheme, found with
     * {@link ServiceLoader} on this class's class loader. The registry is not started.
     *
     * @throws IllegalArgumentException if no provider serves the scheme; the message names the modules that do
     */
    static NodeRegistry open(RegistrySpec spec, RegistryConfig config) {
        TreeMap<String, NodeRegistryProvider> providers = new TreeMap<>();
        for (NodeRegistryProvider provider : ServiceLoader.load(NodeRegistryProvider.class, NodeRegistry.class.getClassLoader())) {
            providers.putIfAbsent(provider.scheme(), provider);
        }
        NodeRegistryProvider provider = providers.get(spec.scheme());
        if (provider == null) {
            throw new IllegalArgumentException("no registry provider for scheme '" + spec.scheme() + "' of registry spec '"
                    + spec + "' (providers found: " + providers.keySet() + "); s3:// needs io.s3broadcast:broadcast-s3 and zk://"
                    + " needs io.s3broadcast:broadcast-zookeeper on the class path");
        }
        return provider.create(spec, config);
    }
}
