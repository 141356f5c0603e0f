package io.s3broadcast.s3.registry;

import io.s3broadcast.registry.AbstractNodeRegistry;
import io.s3broadcast.registry.NodeEntry;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.registry.NodeRegistry;
import io.s3broadcast.registry.NodeRegistryProvider;
import io.s3broadcast.registry.RegistryConfig;
import io.s3broadcast.registry.RegistryException;
import io.s3broadcast.registry.RegistrySpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.core.exception.SdkClientException;
import java.security.SecureRandom;

/**
 * A group's members live in a few small manifest objects {@code <prefix>/<group hash>/members-<i>} ({@link Manifest}),
 * a node in shard {@code floorMod(nodeId.hashCode(), shards)}, so that writes contend little. Each entry carries a
 * lease: its node writes it again every heartbeat interval with the lease ending {@code staleAfter} later.
 *
 * <p>Writes are read-modify-write with conditional PUTs: {@code If-Match} on the ETag just read, or
 * {@code If-None-Match: *} to create a shard; a 412 or 409 (or a dropped connection or 5xx) reads again and retries
 * after a jittered, growing pause on the scheduler. Every write also drops the leases that ended more than {@code staleAfter} ago (crashed nodes), so
 * nothing is left behind for long; {@link #leave()} removes this node's entry.
 *
 * <p>Watching is polling: every poll interval the node reads every shard with {@code If-None-Match} on the ETag it
 * last saw, so an unchanged shard costs a 304 and no body. One GET per shard per round, whatever the group's size:
 * the fleet makes {@code N x shards} GETs and about {@code N / heartbeat} PUTs per round-trip of the poll, O(N).
 * ETags are only ever compared for equality (under SSE-KMS they are not MD5s); the manifest's own version counter
 * and contents tell what changed. An entry is live while its lease has not ended by this node's clock, or while
 * this node has seen its lease move on within {@code staleAfter} (which keeps nodes live when this clock runs ahead
 * of theirs). If a poll finds this node's own entry missing (a backend whose conditional write is not atomic lost
 * it, or a writer with a fast clock purged it), the node writes it again at once. {@link #pollNow()} polls at once
 * (a node waiting for its group asks for it).
 */
public final class S3PrefixRegistry extends AbstractNodeRegistry {

    private static final Logger log = LoggerFactory.getLogger(S3PrefixRegistry.class);

    /** Attempts of one read-modify-write before it fails. */
    static final int MAX_ATTEMPTS = 30;
    /** First pause after a lost race; it doubles up to {@link #MAX_BACKOFF}, each drawn uniformly below its cap. */
    static final Duration BASE_BACKOFF = Duration.ofMillis(50);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

    private final S3AsyncClient s3;
    private final boolean ownsClient;
    private final String bucket;
    private final String groupPrefix;
    private final String secretKey;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final Duration heartbeatInterval;
    private final Duration pollInterval;
    private final Duration staleAfter;
    private final Duration operationTimeout;
    private final int shards;

    /** The last copy of each shard this node read or wrote, with its ETag. */
    private final AtomicReferenceArray<Copy> copies;
    /** When this node saw each member's lease move on, by this node's clock. */
    private final Map<String, Seen> seen = new ConcurrentHashMap<>();
    private final AtomicBoolean polling = new AtomicBoolean();
    private final AtomicBoolean renewing = new AtomicBoolean();
    private volatile boolean started;

    private volatile NodeEntry own; // this node's entry while registered
    private ScheduledFuture<?> pollTask; // guarded by the lifecycle (do* methods)
    private ScheduledFuture<?> heartbeatTask; // guarded by the lifecycle (do* methods)

    S3PrefixRegistry(S3AsyncClient s3, boolean ownsClient, String bucket, String prefix, RegistryConfig config) {
        super(config.group());
        this.s3 = Objects.requireNonNull(s3, "s3");
        this.ownsClient = ownsClient;
        this.bucket = Objects.requireNonNull(bucket, "bucket");
        String p = Objects.requireNonNull(prefix, "prefix");
        this.groupPrefix = (p.isEmpty() ? "" : p + "/") + config.group().hash() + "/";
        this.secretKey = (p.isEmpty() ? "" : p + "/") + SECRET_NAME;
        this.clock = config.clock();
        this.ownsScheduler = config.scheduler() == null;
        this.scheduler = ownsScheduler ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "s3-registry-" + config.group().hash().substring(0, 8));
            t.setDaemon(true);
            return t;
        }) : config.scheduler();
        this.heartbeatInterval = config.heartbeatInterval();
        this.pollInterval = config.pollInterval();
        this.staleAfter = config.staleAfter();
        this.operationTimeout = config.operationTimeout();
        this.shards = config.manifestShards();
        this.copies = new AtomicReferenceArray<>(shards);
    }

    /**
     * A registry under {@code s3://bucket/prefix} using {@code s3}, which the caller owns and closes.
     *
     * @param prefix without leading or trailing {@code /}; may be empty
     */
    public static S3PrefixRegistry create(S3AsyncClient s3, String bucket, String prefix, RegistryConfig config) {
        RegistrySpec.S3Prefix spec = (RegistrySpec.S3Prefix) RegistrySpec.parse("s3://" + bucket + "/" + prefix);
        return new S3PrefixRegistry(s3, false, spec.bucket(), spec.prefix(), config);
    }

    /** {@code s3://bucket/<prefix>/<group hash>/}, where this group's manifests live. */
    public String location() {
        return "s3://" + bucket + "/" + groupPrefix;
    }

    /** The key of manifest shard {@code i}. */
    String shardKey(int i) {
        return groupPrefix + "members-" + i;
    }

    /** The shard that holds {@code nodeId}'s entry. */
    int shardOf(String nodeId) {
        return Math.floorMod(nodeId.hashCode(), shards);
    }

    /** Name of the object, under the registry's prefix, that holds the group secret of every group there. */
    public static final String SECRET_NAME = "s3broadcast-secret";

    /**
     * The secret at {@code <prefix>/s3broadcast-secret}, shared by every group under the prefix: read it, or create
     * it with {@code If-None-Match: *} so that of nodes racing to create it exactly one wins, then read it back.
     */
    @Override
    public Optional<byte[]> groupSecret() {
        String where = "s3://" + bucket + "/" + secretKey;
        Optional<byte[]> existing = readSecret(where);
        if (existing.isPresent()) {
            return existing;
        }
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        try {
            await(s3.putObject(b -> b.bucket(bucket).key(secretKey).ifNoneMatch("*")
                            .contentType("application/octet-stream")
                            .overrideConfiguration(o -> o.apiCallTimeout(operationTimeout)),
                    AsyncRequestBody.fromBytes(secret)), "create " + where);
            log.info("{}: created the group secret {} (whoever can read it can join)", this, where);
        } catch (RegistryException e) {
            if (!isConflict(e.getCause())) {
                throw new RegistryException("could not create the group secret " + where + ": " + e.getMessage()
                        + "; if this S3 backend does not support conditional writes (If-None-Match), configure a"
                        + " secret (s3broadcast.secret, S3BROADCAST_SECRET or --secret-file)", e);
            }
            // Another node created it first: use that one.
        }
        return Optional.of(readSecret(where).orElseThrow(() -> new RegistryException("the group secret " + where
                + " vanished right after it was written; is something deleting it?")));
    }

    private Optional<byte[]> readSecret(String where) {
        try {
            byte[] bytes = await(s3.getObject(b -> b.bucket(bucket).key(secretKey)
                            .overrideConfiguration(o -> o.apiCallTimeout(operationTimeout)),
                    AsyncResponseTransformer.toBytes()), "read " + where).asByteArray();
            if (bytes.length < 16) {
                throw new RegistryException("the group secret " + where + " has " + bytes.length
                        + " bytes, fewer than 16: delete it (a new one is generated) or configure a secret");
            }
            return Optional.of(bytes);
        } catch (RegistryException e) {
            if (e.getCause() instanceof NoSuchKeyException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    protected void doStart() {
        await(poll(), "read the manifests under " + location());
        long every = pollInterval.toNanos();
        pollTask = scheduler.scheduleWithFixedDelay(this::pollInBackground, every, every, TimeUnit.NANOSECONDS);
        started = true;
    }

    /** Polls now, in the background (unless a poll is running already). */
    @Override
    public void pollNow() {
        if (started && !isClosed()) {
            pollInBackground();
        }
    }

    @Override
    protected NodeInfo doRegister(NodeInfo node) {
        refuseIfTakenByAnother(node);
        NodeEntry entry = new NodeEntry(node, clock.instant());
        own = entry;
        try {
            await(renew(), "write " + node.nodeId() + " into s3://" + bucket + "/" + shardKey(shardOf(node.nodeId())));
        } catch (RuntimeException e) {
            own = null;
            throw e;
        }
        long every = heartbeatInterval.toNanos();
        // The first renewal comes a random half to whole interval after joining, so that nodes started together do
        // not all write at the same moment ever after.
        long first = every / 2 + ThreadLocalRandom.current().nextLong(every / 2 + 1);
        heartbeatTask = scheduler.scheduleAtFixedRate(this::heartbeatInBackground, first, every, TimeUnit.NANOSECONDS);
        memberJoined(node);
        return node;
    }

    /** This node's entry says its broadcast has begun from now on: written at once, and at every renewal. */
    @Override
    protected void doMarkBegun(NodeInfo node) {
        NodeEntry entry = own;
        if (entry == null || entry.begun()) {
            return;
        }
        own = entry.withBegun();
        await(renew(), "mark " + node.nodeId() + " begun in s3://" + bucket + "/" + shardKey(shardOf(node.nodeId())));
    }

    /** A live entry with this id and another address belongs to another node: node ids must be unique. */
    private void refuseIfTakenByAnother(NodeInfo node) {
        int shard = shardOf(node.nodeId());
        Copy copy = await(read(shard), "read s3://" + bucket + "/" + shardKey(shard));
        Manifest.Lease existing = copy.manifest.entries().get(node.nodeId());
        if (existing != null && !existing.until().isBefore(clock.instant()) && !existing.entry().node().equals(node)) {
            throw new RegistryException("node id " + node.nodeId() + " is already registered at " + location()
                    + " by a live node at " + existing.entry().node().address() + "; node ids must be unique in a group");
        }
    }

    @Override
    protected void doLeave(NodeInfo node) {
        if (heartbeatTask != null) {
            heartbeatTask.cancel(false);
            heartbeatTask = null;
        }
        own = null;
        memberLeft(node.nodeId());
        int shard = shardOf(node.nodeId());
        String what = "remove " + node.nodeId() + " from s3://" + bucket + "/" + shardKey(shard);
        // Read back once: on a backend whose If-Match is not atomic (S3Proxy) a racing writer can bring it back.
        for (int i = 0; i < 3; i++) {
            await(update(shard, m -> m.entries().containsKey(node.nodeId()) ? m.without(node.nodeId()) : m), what);
            if (!await(read(shard), what).manifest.entries().containsKey(node.nodeId())) {
                return;
            }
        }
    }

    @Override
    protected void doClose() {
        if (pollTask != null) {
            pollTask.cancel(false);
        }
        if (heartbeatTask != null) {
            heartbeatTask.cancel(false);
        }
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
        if (ownsClient) {
            s3.close();
        }
    }

    private void pollInBackground() {
        if (!polling.compareAndSet(false, true)) {
            return; // the last poll is still running
        }
        poll().whenComplete((members, failure) -> {
            polling.set(false);
            if (failure != null && !isClosed()) {
                log.warn("{}: could not read the manifests under {}; keeping the last members: {}", this, location(),
                        rootCause(failure).toString());
            }
        });
    }

    private void heartbeatInBackground() {
        NodeEntry entry = own;
        if (entry == null || !renewing.compareAndSet(false, true)) {
            return;
        }
        long startedAt = System.nanoTime();
        renew().whenComplete((r, failure) -> {
            renewing.set(false);
            log.debug("{}: heartbeat of {} took {} ms{}", this, entry.node().nodeId(),
                    (System.nanoTime() - startedAt) / 1_000_000, failure == null ? "" : ": " + failure);
            if (failure != null && !isClosed()) {
                log.warn("{}: heartbeat of {} failed; others drop this node after {} without one: {}", this,
                        entry.node().nodeId(), staleAfter, rootCause(failure).toString());
            }
        });
    }

    /**
     * Writes this node's entry with a lease ending {@code staleAfter} from now, dropping ended leases on the way.
     * Completes at once if not registered.
     */
    CompletableFuture<Void> heartbeat() {
        return renew();
    }

    private CompletableFuture<Void> renew() {
        NodeEntry entry = own;
        if (entry == null) {
            return CompletableFuture.completedFuture(null);
        }
        String id = entry.node().nodeId();
        return update(shardOf(id), m -> own == entry ? m.with(new Manifest.Lease(entry, clock.instant().plus(staleAfter))) : m);
    }

    /** Reads every shard (conditionally) and reports the live members. */
    CompletableFuture<List<NodeInfo>> poll() {
        List<CompletableFuture<Copy>> reads = new ArrayList<>(shards);
        for (int i = 0; i < shards; i++) {
            reads.add(read(i));
        }
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            List<NodeInfo> members = report(clock.instant());
            NodeEntry entry = own;
            if (entry != null && !isClosed()) {
                Copy mine = copies.get(shardOf(entry.node().nodeId()));
                if (mine != null && !mine.manifest.entries().containsKey(entry.node().nodeId())) {
                    log.info("{}: the entry of {} is missing from {}; writing it again", this, entry.node().nodeId(),
                            shardKey(shardOf(entry.node().nodeId())));
                    return renew().thenApply(r -> members);
                }
            }
            return CompletableFuture.completedFuture(members);
        });
    }

    private List<NodeInfo> report(Instant now) {
        NodeEntry entry = own;
        String ownId = entry == null ? null : entry.node().nodeId();
        List<NodeInfo> members = new ArrayList<>();
        Set<String> present = new HashSet<>();
        boolean othersBegun = false;
        for (int i = 0; i < shards; i++) {
            Copy copy = copies.get(i);
            if (copy == null) {
                continue;
            }
            for (Manifest.Lease lease : copy.manifest.entries().values()) {
                NodeInfo node = lease.entry().node();
                if (node.nodeId().equals(ownId) || shardOf(node.nodeId()) != i) {
                    continue;
                }
                present.add(node.nodeId());
                Seen before = seen.get(node.nodeId());
                Seen current = before == null ? new Seen(lease.until(), null)
                        : lease.until().isAfter(before.until) ? new Seen(lease.until(), now) : before;
                seen.put(node.nodeId(), current);
                if (!lease.until().isBefore(now) || (current.advancedAt != null && isFresh(current.advancedAt, now))) {
                    members.add(node);
                    othersBegun |= lease.entry().begun();
                }
            }
        }
        seen.keySet().retainAll(present);
        if (log.isDebugEnabled()) {
            StringBuilder d = new StringBuilder();
            for (int i = 0; i < shards; i++) {
                Copy copy = copies.get(i);
                d.append(" shard ").append(i).append(copy == null ? " unread" : " v" + copy.manifest.version() + " "
                        + copy.eTag + " " + copy.manifest.entries().size() + " entries");
                if (copy != null) {
                    for (Manifest.Lease l : copy.manifest.entries().values()) {
                        d.append(' ').append(l.entry().node().nodeId()).append('+')
                                .append(Duration.between(now, l.until()).toMillis());
                    }
                }
            }
            log.debug("{}: poll at {}: {} live:{}", this, now, members.size(), d);
        }
        NodeInfo self = registeredSelf();
        if (self != null && self.nodeId().equals(ownId)) {
            members.add(self);
        }
        if (!isClosed()) {
            reportOthersBegun(othersBegun);
            replaceMembers(members);
        }
        return members;
    }

    /**
     * Reads shard {@code i} with {@code If-None-Match} on the last ETag seen: a 304 keeps the copy, a missing object
     * is an empty manifest, a body that is not a manifest is taken as empty (and replaced by the next write).
     */
    CompletableFuture<Copy> read(int i) {
        Copy last = copies.get(i);
        String key = shardKey(i);
        return s3.getObject(b -> b.bucket(bucket).key(key).ifNoneMatch(last == null ? null : last.eTag)
                                .overrideConfiguration(o -> o.apiCallTimeout(operationTimeout)),
                        AsyncResponseTransformer.toBytes())
                .handle((bytes, failure) -> {
                    if (failure != null) {
                        Throwable cause = rootCause(failure);
                        if (cause instanceof S3Exception e && e.statusCode() == 304 && last != null) {
                            return last;
                        }
                        if (cause instanceof NoSuchKeyException) {
                            return store(i, new Copy(null, Manifest.EMPTY));
                        }
                        throw new CompletionException(cause);
                    }
                    Manifest manifest;
                    try {
                        manifest = Manifest.parse(bytes.asByteArray());
                    } catch (IllegalArgumentException e) {
                        log.warn("{}: ignoring s3://{}/{}: {}", this, bucket, key, e.getMessage());
                        manifest = Manifest.EMPTY;
                    }
                    return store(i, new Copy(bytes.response().eTag(), manifest));
                });
    }

    private Copy store(int i, Copy copy) {
        copies.set(i, copy);
        return copy;
    }

    /**
     * Read-modify-write of shard {@code i}: reads it, applies {@code change} to it with the ended leases purged, and
     * writes the result if it differs, conditional on the ETag read; on a lost race reads again and retries after a
     * jittered pause.
     */
    CompletableFuture<Void> update(int i, UnaryOperator<Manifest> change) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        attempt(i, change, 0, done);
        return done;
    }

    private void attempt(int i, UnaryOperator<Manifest> change, int attempt, CompletableFuture<Void> done) {
        read(i).thenCompose(copy -> {
            Manifest purged = copy.manifest.purgedBefore(clock.instant().minus(staleAfter));
            Manifest changed = change.apply(purged);
            if (changed == copy.manifest) {
                return CompletableFuture.completedFuture(null);
            }
            if (changed == purged) {
                changed = new Manifest(purged.version() + 1, purged.entries());
            }
            return write(i, copy.eTag, changed);
        }).whenComplete((r, failure) -> {
            if (failure == null) {
                done.complete(null);
                return;
            }
            Throwable cause = rootCause(failure);
            if (!(isConflict(cause) || isTransient(cause)) || attempt + 1 >= MAX_ATTEMPTS) {
                done.completeExceptionally(isConflict(cause) ? new RegistryException("gave up writing s3://" + bucket + "/"
                        + shardKey(i) + " after " + (attempt + 1) + " attempts that lost races with other writers", cause)
                        : cause);
                return;
            }
            long capNanos = Math.min(MAX_BACKOFF.toNanos(), BASE_BACKOFF.toNanos() << Math.min(attempt, 20));
            long pause = ThreadLocalRandom.current().nextLong(capNanos + 1);
            try {
                scheduler.schedule(() -> attempt(i, change, attempt + 1, done), pause, TimeUnit.NANOSECONDS);
            } catch (RuntimeException e) {
                done.completeExceptionally(e); // the scheduler is shut down
            }
        });
    }

    private CompletableFuture<Void> write(int i, String eTag, Manifest manifest) {
        String key = shardKey(i);
        byte[] body = manifest.toBytes();
        return s3.putObject(b -> {
                    b.bucket(bucket).key(key).contentType("text/plain; charset=utf-8")
                            .overrideConfiguration(o -> o.apiCallTimeout(operationTimeout));
                    if (eTag == null) {
                        b.ifNoneMatch("*");
                    } else {
                        b.ifMatch(eTag);
                    }
                }, AsyncRequestBody.fromBytes(body))
                .thenAccept(response -> {
                    // The PUT's ETag names exactly these bytes; with none, the next read fetches them again.
                    store(i, new Copy(response.eTag(), manifest));
                });
    }

    /** A dropped connection or a 5xx (503 SlowDown included) after the SDK's own retries: worth another round. */
    private static boolean isTransient(Throwable t) {
        return t instanceof S3Exception e ? e.statusCode() >= 500 : t instanceof SdkClientException;
    }

    /** 412 Precondition Failed, or 409 ConditionalRequestConflict: another writer got there first. */
    private static boolean isConflict(Throwable t) {
        return t instanceof S3Exception e && (e.statusCode() == 412 || e.statusCode() == 409);
    }

    private boolean isFresh(Instant seenAt, Instant now) {
        return !seenAt.plus(staleAfter).isBefore(now);
    }

    /** Waits for a call to S3 that carries its own timeout; a little longer, in case it does not fire. */
    private <T> T await(CompletableFuture<T> call, String what) {
        try {
            return call.get(operationTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            call.cancel(true);
            throw new RegistryException("interrupted while trying to " + what, e);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new RegistryException("could not " + what + " within " + operationTimeout, e);
        } catch (ExecutionException e) {
            Throwable cause = rootCause(e);
            throw new RegistryException("could not " + what + ": " + cause, cause);
        }
    }

    private static Throwable rootCause(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    @Override
    public String toString() {
        return "S3PrefixRegistry[" + location() + "]";
    }

    /** A shard as last read or written: its ETag (null if the object does not exist) and contents. */
    record Copy(String eTag, Manifest manifest) {
    }

    /** A member's lease end as last seen, and when (by this node's clock) this node saw it move on. */
    private record Seen(Instant until, Instant advancedAt) {
    }

    /** Serves {@code s3://bucket/prefix} specs, with the config's S3 client or one built from the SDK's defaults. */
    public static final class Provider implements NodeRegistryProvider {

        @Override
        public String scheme() {
            return "s3";
        }

        @Override
        public NodeRegistry create(RegistrySpec spec, RegistryConfig config) {
            if (!(spec instanceof RegistrySpec.S3Prefix s)) {
                throw new IllegalArgumentException("not an S3 registry spec: " + spec);
            }
            if (config.s3Client() != null) {
                return new S3PrefixRegistry(config.s3Client(), false, s.bucket(), s.prefix(), config);
            }
            S3AsyncClient client;
            try {
                client = S3AsyncClient.builder().httpClientBuilder(NettyNioAsyncHttpClient.builder()).build();
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("registry " + spec + " needs an S3 client and the SDK could not build one ("
                        + e.getMessage() + "); set AWS_REGION and credentials, or pass a client in RegistryConfig", e);
            }
            return new S3PrefixRegistry(client, true, s.bucket(), s.prefix(), config);
        }
    }
}
