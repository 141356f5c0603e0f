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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.S3Exception;
import java.security.SecureRandom;

/**
 * Each member is one object {@code <prefix>/<group hash>/<node id>} holding its {@link NodeEntry} (id, host,
 * port, joined time). Members are found by listing {@code <prefix>/<group hash>/}, page by page.
 *
 * <p>The heartbeat is the object's {@code LastModified}: every heartbeat interval the node writes the same
 * bytes again, so the ETag stays the same and readers fetch an entry's body only when it is new or its ETag
 * changed; one LIST per poll, whatever the group's size. An entry is live while its {@code LastModified} is
 * within the staleness timeout of this node's clock, or while this node has seen it written again (its
 * {@code LastModified} or ETag change) within that timeout (which keeps nodes live when this clock runs ahead of S3's). Stale entries
 * are members no more; {@link #leave()} deletes this node's object. (With SSE-KMS the ETag changes on every
 * write, so each poll reads every entry again: correct, but one GET per member per poll.)
 *
 * <p>Watching is polling: every poll interval the listing is diffed with the last one. Heartbeats and polls
 * run on the configured scheduler; a failed poll keeps the last members and is logged. {@link #pollNow()} polls at
 * once (a node waiting for its group asks for it).
 */
public final class S3PrefixRegistry extends AbstractNodeRegistry {

    private static final Logger log = LoggerFactory.getLogger(S3PrefixRegistry.class);

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
    private final int pageSize;

    /** What the last listings showed, by key. */
    private final Map<String, Seen> seen = new ConcurrentHashMap<>();
    private final AtomicBoolean polling = new AtomicBoolean();
    private volatile boolean started;

    private volatile String ownId; // the id this node registered with; the listing never overrides it
    private volatile byte[] ownBody;
    private ScheduledFuture<?> pollTask; // guarded by the lifecycle (do* methods)
    private ScheduledFuture<?> heartbeatTask; // guarded by the lifecycle (do* methods)

    S3PrefixRegistry(S3AsyncClient s3, boolean ownsClient, String bucket, String prefix, RegistryConfig config, int pageSize) {
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
        if (pageSize < 1 || pageSize > 1000) {
            throw new IllegalArgumentException("pageSize must be 1 to 1000, was " + pageSize);
        }
        this.pageSize = pageSize;
    }

    /**
     * A registry under {@code s3://bucket/prefix} using {@code s3}, which the caller owns and closes.
     *
     * @param prefix without leading or trailing {@code /}; may be empty
     */
    public static S3PrefixRegistry create(S3AsyncClient s3, String bucket, String prefix, RegistryConfig config) {
        RegistrySpec.S3Prefix spec = (RegistrySpec.S3Prefix) RegistrySpec.parse("s3://" + bucket + "/" + prefix);
        return new S3PrefixRegistry(s3, false, spec.bucket(), spec.prefix(), config, 1000);
    }

    /** {@code s3://bucket/<prefix>/<group hash>/}, where this group's entries live. */
    public String location() {
        return "s3://" + bucket + "/" + groupPrefix;
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
            if (!(e.getCause() instanceof S3Exception s3e) || (s3e.statusCode() != 412 && s3e.statusCode() != 409)) {
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
        await(poll(), "list " + location());
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
        String key = groupPrefix + node.nodeId();
        refuseIfTakenByAnother(key, node);
        byte[] body = new NodeEntry(node, clock.instant()).toJson();
        await(put(key, body), "write " + "s3://" + bucket + "/" + key);
        ownId = node.nodeId();
        ownBody = body;
        long every = heartbeatInterval.toNanos();
        heartbeatTask = scheduler.scheduleAtFixedRate(this::heartbeatInBackground, every, every, TimeUnit.NANOSECONDS);
        memberJoined(node);
        return node;
    }

    /** A live entry with this id and another address belongs to another node: node ids must be unique. */
    private void refuseIfTakenByAnother(String key, NodeInfo node) {
        ResponseBytes<GetObjectResponse> existing;
        try {
            existing = await(s3.getObject(b -> b.bucket(bucket).key(key).overrideConfiguration(o -> o.apiCallTimeout(operationTimeout)),
                    AsyncResponseTransformer.toBytes()), "read s3://" + bucket + "/" + key);
        } catch (RegistryException e) {
            if (e.getCause() instanceof NoSuchKeyException) {
                return;
            }
            throw e;
        }
        Instant lastModified = existing.response().lastModified();
        if (lastModified == null || !isFresh(lastModified, clock.instant())) {
            return;
        }
        NodeInfo other;
        try {
            other = NodeEntry.parse(existing.asByteArray()).node();
        } catch (IllegalArgumentException e) {
            return;
        }
        if (!other.equals(node)) {
            throw new RegistryException("node id " + node.nodeId() + " is already registered at " + location() + " by a live node at "
                    + other.address() + "; node ids must be unique in a group");
        }
    }

    @Override
    protected void doLeave(NodeInfo node) {
        if (heartbeatTask != null) {
            heartbeatTask.cancel(false);
            heartbeatTask = null;
        }
        ownBody = null;
        memberLeft(node.nodeId());
        String key = groupPrefix + node.nodeId();
        await(s3.deleteObject(b -> b.bucket(bucket).key(key).overrideConfiguration(o -> o.apiCallTimeout(operationTimeout))),
                "delete s3://" + bucket + "/" + key);
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
                log.warn("{}: could not list {}; keeping the last members: {}", this, location(), rootCause(failure).toString());
            }
        });
    }

    private void heartbeatInBackground() {
        byte[] body = ownBody;
        String id = ownId;
        if (body == null || id == null) {
            return;
        }
        heartbeat().whenComplete((r, failure) -> {
            if (failure != null && !isClosed()) {
                log.warn("{}: heartbeat of {} failed; others drop this node after {} without one: {}", this, id, staleAfter,
                        rootCause(failure).toString());
            }
        });
    }

    /** Writes this node's entry again, moving its {@code LastModified} on. Completes at once if not registered. */
    CompletableFuture<Void> heartbeat() {
        byte[] body = ownBody;
        String id = ownId;
        if (body == null || id == null) {
            return CompletableFuture.completedFuture(null);
        }
        return put(groupPrefix + id, body);
    }

    /** Lists the group, reads new or changed entries, and reports the live ones as the members. */
    CompletableFuture<List<NodeInfo>> poll() {
        List<S3Object> listed = new ArrayList<>();
        return listFrom(null, listed).thenCompose(done -> {
            Instant now = clock.instant();
            Set<String> keys = new HashSet<>();
            List<CompletableFuture<Void>> reads = new ArrayList<>();
            for (S3Object object : listed) {
                String key = object.key();
                String id = key.substring(groupPrefix.length());
                if (id.isEmpty() || id.indexOf('/') >= 0 || id.equals(ownId)) {
                    continue;
                }
                keys.add(key);
                Seen before = seen.get(key);
                boolean written = before != null && (object.lastModified().isAfter(before.lastModified)
                        || !unquote(object.eTag()).equals(unquote(before.eTag)));
                Instant advancedAt = written ? now : before == null ? null : before.advancedAt;
                Seen current = new Seen(object.eTag(), object.lastModified(), advancedAt,
                        before != null && before.eTag.equals(object.eTag()) ? before.node : null);
                seen.put(key, current);
                if (current.node == null && current.isLive(now)) {
                    reads.add(read(key, id));
                }
            }
            seen.keySet().retainAll(keys);
            return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(v -> report(now));
        });
    }

    private List<NodeInfo> report(Instant now) {
        List<NodeInfo> members = new ArrayList<>();
        for (Seen s : seen.values()) {
            if (s.node != null && s.isLive(now)) {
                members.add(s.node);
            }
        }
        String id = ownId;
        NodeInfo self = registeredSelf();
        if (self != null && self.nodeId().equals(id)) {
            members.add(self);
        }
        if (!isClosed()) {
            replaceMembers(members);
        }
        return members;
    }

    /** Reads one entry's body; an unreadable or vanished entry is skipped until its ETag changes. */
    private CompletableFuture<Void> read(String key, String id) {
        return s3.getObject(b -> b.bucket(bucket).key(key).overrideConfiguration(o -> o.apiCallTimeout(operationTimeout)),
                        AsyncResponseTransformer.toBytes())
                .handle((bytes, failure) -> {
                    Seen s = seen.get(key);
                    if (s == null) {
                        return null;
                    }
                    if (failure != null) {
                        if (rootCause(failure) instanceof NoSuchKeyException) {
                            seen.remove(key);
                        } else {
                            log.debug("{}: could not read {}: {}", this, key, rootCause(failure).toString());
                        }
                        return null;
                    }
                    if (!unquote(bytes.response().eTag()).equals(unquote(s.eTag))) {
                        return null; // rewritten since the listing; the next poll reads it again
                    }
                    try {
                        NodeInfo node = NodeEntry.parse(bytes.asByteArray()).node();
                        if (node.nodeId().equals(id)) {
                            seen.put(key, s.withNode(node));
                        } else {
                            log.warn("{}: ignoring {}: it holds node id {}", this, key, node.nodeId());
                        }
                    } catch (IllegalArgumentException e) {
                        log.warn("{}: ignoring {}: {}", this, key, e.getMessage());
                    }
                    return null;
                });
    }

    private CompletableFuture<Void> listFrom(String token, List<S3Object> into) {
        return s3.listObjectsV2(b -> b.bucket(bucket).prefix(groupPrefix).maxKeys(pageSize).continuationToken(token)
                        .overrideConfiguration(o -> o.apiCallTimeout(operationTimeout)))
                .thenCompose((ListObjectsV2Response page) -> {
                    into.addAll(page.contents());
                    if (Boolean.TRUE.equals(page.isTruncated()) && page.nextContinuationToken() != null) {
                        return listFrom(page.nextContinuationToken(), into);
                    }
                    return CompletableFuture.completedFuture(null);
                });
    }

    private CompletableFuture<Void> put(String key, byte[] body) {
        return s3.putObject(b -> b.bucket(bucket).key(key).contentType("application/json")
                        .overrideConfiguration(o -> o.apiCallTimeout(operationTimeout)),
                AsyncRequestBody.fromBytes(body)).thenApply(r -> null);
    }

    private boolean isFresh(Instant lastModified, Instant now) {
        return !lastModified.plus(staleAfter).isBefore(now);
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

    private static String unquote(String eTag) {
        return eTag == null ? "" : eTag.replace("\"", "");
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

    /** One listed entry: its ETag and {@code LastModified}, when this node saw that advance, and its body once read. */
    private final class Seen {
        final String eTag;
        final Instant lastModified;
        final Instant advancedAt;
        final NodeInfo node;

        Seen(String eTag, Instant lastModified, Instant advancedAt, NodeInfo node) {
            this.eTag = eTag;
            this.lastModified = lastModified;
            this.advancedAt = advancedAt;
            this.node = node;
        }

        Seen withNode(NodeInfo n) {
            return new Seen(eTag, lastModified, advancedAt, n);
        }

        boolean isLive(Instant now) {
            return isFresh(lastModified, now) || (advancedAt != null && isFresh(advancedAt, now));
        }
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
                return new S3PrefixRegistry(config.s3Client(), false, s.bucket(), s.prefix(), config, 1000);
            }
            S3AsyncClient client;
            try {
                client = S3AsyncClient.builder().httpClientBuilder(NettyNioAsyncHttpClient.builder()).build();
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("registry " + spec + " needs an S3 client and the SDK could not build one ("
                        + e.getMessage() + "); set AWS_REGION and credentials, or pass a client in RegistryConfig", e);
            }
            return new S3PrefixRegistry(client, true, s.bucket(), s.prefix(), config, 1000);
        }
    }
}
