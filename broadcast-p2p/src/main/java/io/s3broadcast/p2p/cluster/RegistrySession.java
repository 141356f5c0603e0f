package io.s3broadcast.p2p.cluster;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.registry.AdvertisedAddress;
import io.s3broadcast.registry.Membership;
import io.s3broadcast.registry.MembershipListener;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.registry.NodeRegistry;
import io.s3broadcast.registry.StaticRegistry;
import io.s3broadcast.spi.PeerSecurity;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node in its group's registry: starts it, registers, waits for the expected members, follows joins and
 * leaves, and closes it. While it waits it asks the registry to look again ({@link NodeRegistry#pollNow()}) after
 * {@link #FIRST_REFRESH}, then at doubling intervals up to {@link #MAX_REFRESH}, so the run begins as soon as the
 * last node has registered rather than at the registry's next poll, for a few cheap listings. Registry calls may
 * block: {@link #start}, {@link #register} and {@link #close} belong on a blocking thread; timers run on the
 * injected scheduler.
 */
final class RegistrySession {

    private static final Logger LOG = LoggerFactory.getLogger(RegistrySession.class);

    static final Duration FIRST_REFRESH = Duration.ofMillis(100);
    static final Duration MAX_REFRESH = Duration.ofSeconds(2);

    /**
     * This node as registered.
     *
     * @param self this node, with the id the registry knows it by
     * @param membersBefore how many other members were there before it registered
     * @param late whether the group was complete before it came: it takes no share
     */
    record Registered(NodeInfo self, int membersBefore, boolean late) {
    }

    private final ScheduledExecutorService timer;
    private volatile NodeRegistry registry;
    private volatile NodeRegistry.Watch watch;
    private volatile boolean closed;

    RegistrySession(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** The group secret: configured, or the registry's ({@code r}, named {@code name}); null when insecure. */
    static byte[] secret(PeerSecurity security, NodeRegistry r, String name) {
        if (security.insecure()) {
            return null;
        }
        if (security.secret() != null) {
            return security.secret();
        }
        return r.groupSecret().orElseThrow(() -> new BroadcastException("no group secret: the registry "
                + name + " cannot hold one, so configure it (Broadcast.builder().secret(...),"
                + " s3broadcast.secret, S3BROADCAST_SECRET or the CLI's --secret-file), or run insecure()"
                + " / --insecure on a trusted network"));
    }

    /** The host this node registers: {@code configured}, else the listen address, else one chosen. */
    static String advertisedHost(String configured, InetSocketAddress listen) {
        if (configured != null) {
            return configured;
        }
        if (!listen.getAddress().isAnyLocalAddress()) {
            return listen.getAddress().getHostAddress();
        }
        return AdvertisedAddress.choose().host();
    }

    /** Starts {@code r} (blocking); false, and {@code r} closed, when this session was closed meanwhile. */
    boolean start(NodeRegistry r) {
        registry = r;
        if (closed) {
            r.close();
            return false;
        }
        r.start();
        return true;
    }

    NodeRegistry registry() {
        return registry;
    }

    /**
     * Registers {@code me} (blocking). The node is late when the registry listed at least {@code expectedNodes}
     * others before, or a member whose broadcast had begun ({@link NodeRegistry#othersBegun()}: the group began
     * without this node, and members may have left since, so fewer than {@code expectedNodes} are left); never
     * with a static registry, which lists every member from the start, nor without an expected count.
     */
    Registered register(NodeInfo me, int expectedNodes) {
        NodeRegistry r = registry;
        Set<String> before = new HashSet<>();
        r.members().forEach(m -> before.add(m.nodeId()));
        boolean begun = r.othersBegun();
        NodeInfo self = r.register(me);
        before.remove(self.nodeId());
        boolean late = expectedNodes > 0 && (before.size() >= expectedNodes || begun) && !(r instanceof StaticRegistry);
        return new Registered(self, before.size(), late);
    }

    /**
     * Waits for {@code expected} members, up to {@code timeout}, asking the registry to look again meanwhile. With
     * none expected the run begins at once with whoever is there, and the registry is asked to look again for
     * {@link #MAX_REFRESH} all the same, so that members registering a moment later are learned of (and take their
     * units back, {@link ShareHandBack}) before this node has read much of them.
     */
    CompletableFuture<Membership> awaitMembers(int expected, Duration timeout) {
        CompletableFuture<Membership> members = registry.awaitMembers(expected, timeout, timer);
        if (!members.isDone()) {
            refreshUntil(members, FIRST_REFRESH.toNanos());
        } else if (expected == 0) {
            CompletableFuture<Void> window = new CompletableFuture<>();
            timer.schedule(() -> window.complete(null), MAX_REFRESH.toNanos(), TimeUnit.NANOSECONDS);
            refreshUntil(window, FIRST_REFRESH.toNanos());
        }
        return members;
    }

    private void refreshUntil(CompletableFuture<?> done, long delayNanos) {
        ScheduledFuture<?> next = timer.schedule(() -> {
            if (done.isDone() || closed) {
                return;
            }
            registry.pollNow();
            refreshUntil(done, Math.min(2 * delayNanos, MAX_REFRESH.toNanos()));
        }, delayNanos, TimeUnit.NANOSECONDS);
        done.whenComplete((v, e) -> next.cancel(false));
    }

    /**
     * This node's broadcast has begun (blocking): the registry records it, so that nodes registering later know
     * they are late. A failure is only logged: the run goes on, and a later node may then take a share.
     */
    void markBegun() {
        NodeRegistry r = registry;
        if (r == null || closed) {
            return;
        }
        try {
            r.markBegun();
        } catch (RuntimeException e) {
            LOG.warn("{}: could not mark this node's broadcast begun; a node joining later may read a share again: {}",
                    r, e.toString());
        }
    }

    /** Asks the registry to look again now: a peer that is not a member yet connected. */
    void refresh() {
        NodeRegistry r = registry;
        if (r != null && !closed) {
            r.pollNow();
        }
    }

    /** {@code listener} hears members join and leave from now on (it first hears the current ones). */
    void watch(MembershipListener listener) {
        watch = registry.watch(listener);
    }

    /** Stops watching and closes the registry (blocking). */
    void close() {
        closed = true;
        NodeRegistry.Watch w = watch;
        if (w != null) {
            w.close();
        }
        NodeRegistry r = registry;
        if (r != null) {
            r.close();
        }
    }

    /**
     * Closes the registry on {@code blocking} (here if it refuses work); a failure is logged for {@code self} in
     * {@code group}. The future completes when it is closed, failed or not.
     */
    CompletableFuture<Void> leave(Executor blocking, String self, Object group) {
        CompletableFuture<Void> left = new CompletableFuture<>();
        Runnable leave = () -> {
            try {
                close();
            } catch (RuntimeException e) {
                LOG.warn("{}: leaving the registry for {} failed: {}", self, group, e.toString());
            } finally {
                left.complete(null);
            }
        };
        try {
            blocking.execute(leave);
        } catch (RuntimeException rejected) {
            leave.run();
        }
        return left;
    }

    /** Whether {@link #close()} was called. */
    boolean isClosed() {
        return closed;
    }
}
