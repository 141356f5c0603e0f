package io.s3broadcast.s3.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.Membership;
import io.s3broadcast.registry.NodeEntry;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.registry.NodeRegistry;
import io.s3broadcast.registry.RegistryConfig;
import io.s3broadcast.registry.RegistryException;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The S3-prefix registry against a real S3 server (broadcast-testkit), on a fake clock and a manual scheduler. */
@RealS3
class S3PrefixRegistryIT {

    private static final Duration STALE_AFTER = Duration.ofSeconds(30);
    private static final NodeInfo A = new NodeInfo("a", "10.0.0.1", 7000);
    private static final NodeInfo B = new NodeInfo("b", "10.0.0.2", 7000);
    private static final NodeInfo C = new NodeInfo("c", "10.0.0.3", 7000);

    private S3Fixture s3;
    private final MutableClock clock = new MutableClock();
    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<NodeRegistry> open = new ArrayList<>();
    private RegistryConfig config;
    private String prefix;

    @BeforeEach
    void setUp() {
        config = RegistryConfig.builder(GroupId.of("data", "model.bin", "\"abc-3\""))
                .s3Client(s3.asyncClient())
                .clock(clock)
                .scheduler(scheduler)
                .heartbeatInterval(Duration.ofSeconds(10))
                .staleAfter(STALE_AFTER)
                .operationTimeout(Duration.ofSeconds(30))
                .build();
        prefix = s3.key("registry");
    }

    @AfterEach
    void closeAll() {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private S3PrefixRegistry registry() {
        return registry(s3.asyncClient());
    }

    private S3PrefixRegistry registry(S3AsyncClient client) {
        S3PrefixRegistry registry = new S3PrefixRegistry(client, false, s3.bucket(), prefix, config);
        open.add(registry);
        registry.start();
        return registry;
    }

    private S3PrefixRegistry registered(NodeInfo node) {
        S3PrefixRegistry registry = registry();
        registry.register(node);
        return registry;
    }

    private List<String> keys() {
        return s3.client().listObjectsV2(b -> b.bucket(s3.bucket()).prefix(prefix + "/")).contents().stream()
                .map(S3Object::key).toList();
    }

    /** Every entry stored in the group's manifests, live or not, by node id. */
    private Map<String, Manifest.Lease> stored() {
        Map<String, Manifest.Lease> all = new TreeMap<>();
        String groupDir = prefix + "/" + config.group().hash() + "/";
        for (String key : keys()) {
            if (key.startsWith(groupDir + "members-")) {
                all.putAll(Manifest.parse(s3.getBytes(key)).entries());
            }
        }
        return all;
    }

    private S3AsyncClient countingClient(RequestCounter counter) {
        return s3.closeAfterTest(s3.server().asyncClientBuilder()
                .overrideConfiguration(o -> o.addExecutionInterceptor(counter)).build());
    }

    private long periodicTasks() {
        return scheduler.scheduled().stream().filter(ManualScheduler.Scheduled::periodic).count();
    }

    @Test
    void joinWritesAnEntryWithALeaseAndPollsFindTheOthers() {
        S3PrefixRegistry a = registered(A);
        RecordingListener events = new RecordingListener();
        a.watch(events);
        assertThat(events.drain()).containsExactly("+a");

        S3PrefixRegistry b = registered(B);
        assertThat(b.members()).containsExactly(A, B);
        String groupDir = prefix + "/" + config.group().hash() + "/";
        assertThat(keys()).allMatch(k -> k.startsWith(groupDir + "members-")).hasSizeBetween(1, 2);
        assertThat(a.location()).isEqualTo("s3://" + s3.bucket() + "/" + groupDir);
        Manifest.Lease stored = stored().get("b");
        assertThat(stored.entry().node()).isEqualTo(B);
        assertThat(stored.entry().joinedAt()).isEqualTo(clock.instant());
        assertThat(stored.until()).isEqualTo(clock.instant().plus(STALE_AFTER));

        a.poll().join();
        assertThat(events.drain()).containsExactly("+b");
        assertThat(a.members()).containsExactly(A, B);
    }

    @Test
    void leaveDeletesTheEntry() {
        S3PrefixRegistry a = registered(A);
        S3PrefixRegistry b = registered(B);
        a.poll().join();
        RecordingListener events = new RecordingListener();
        a.watch(events);
        assertThat(events.drain()).containsExactly("+a", "+b");

        b.leave();
        assertThat(stored()).containsOnlyKeys("a");
        a.poll().join();
        assertThat(events.drain()).containsExactly("-b");

        b.close();
        a.close();
        assertThat(stored()).isEmpty();
    }

    /** Completes when {@code registry}'s watchers hear {@code node} join. */
    private static CompletableFuture<NodeInfo> heardJoin(S3PrefixRegistry registry, NodeInfo node) {
        CompletableFuture<NodeInfo> heard = new CompletableFuture<>();
        registry.watch(new io.s3broadcast.registry.MembershipListener() {
            @Override
            public void joined(NodeInfo joined) {
                if (joined.equals(node)) {
                    heard.complete(joined);
                }
            }
        });
        return heard;
    }

    @Test
    void theScheduledPollIsWhatWatchersHear() throws Exception {
        S3PrefixRegistry a = registered(A);
        CompletableFuture<NodeInfo> heardB = heardJoin(a, B);
        registered(B);
        assertThat(heardB).isNotDone();
        scheduler.advance(config.pollInterval()); // a's poll (and B's) start; a's reports B when its reads complete
        assertThat(heardB.get(20, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(B);
    }

    @Test
    void pollNowPollsWithoutWaitingForThePollInterval() throws Exception {
        S3PrefixRegistry a = registered(A);
        CompletableFuture<NodeInfo> heardB = heardJoin(a, B);
        registered(B);
        a.pollNow(); // no time passes on the scheduler
        assertThat(heardB.get(20, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(B);
    }

    @Test
    void anExpiredLeaseIsIgnoredByReadersAndPurgedByTheNextWriter() {
        config = config.toBuilder().manifestShards(1).build(); // so that any write touches B's shard
        S3PrefixRegistry a = registered(A);
        S3PrefixRegistry crashed = new S3PrefixRegistry(s3.asyncClient(), false, s3.bucket(), prefix, config);
        crashed.start();
        crashed.register(B); // never left, never closed: its process is gone
        a.poll().join();
        RecordingListener events = new RecordingListener();
        a.watch(events);
        assertThat(events.drain()).containsExactly("+a", "+b");

        clock.advance(STALE_AFTER.minusSeconds(5));
        a.heartbeat().join();
        a.poll().join();
        assertThat(a.members()).containsExactly(A, B);

        clock.advance(Duration.ofSeconds(10)); // B's lease has ended; nobody renewed it
        a.heartbeat().join();
        a.poll().join();
        assertThat(events.drain()).containsExactly("-b");
        assertThat(a.members()).containsExactly(A);
        assertThat(stored()).containsKey("b"); // ignored, not yet purged: that waits a grace period of staleAfter

        clock.advance(STALE_AFTER);
        a.heartbeat().join(); // any write to the shard purges what expired more than staleAfter ago
        assertThat(stored()).containsOnlyKeys("a");
        S3PrefixRegistry c = registered(C);
        assertThat(c.members()).containsExactly(A, C);

        NodeRegistry bAgain = registered(B); // a new process with the same id
        a.poll().join();
        assertThat(events.drain()).containsExactly("+b", "+c");
        assertThat(bAgain.members()).containsExactly(A, B, C);
    }

    @Test
    void theHeartbeatRenewsTheLeaseAndAMissingEntryIsWrittenAgain() {
        S3PrefixRegistry a = registry();
        assertThat(periodicTasks()).as("poll").isEqualTo(1);
        a.register(A);
        assertThat(periodicTasks()).as("poll and heartbeat").isEqualTo(2);
        clock.advance(Duration.ofSeconds(10));
        a.heartbeat().join();
        assertThat(stored().get("a").until()).isEqualTo(clock.instant().plus(STALE_AFTER));

        for (String key : keys()) { // lost, say by a backend whose conditional write is not atomic
            s3.client().deleteObject(b -> b.bucket(s3.bucket()).key(key));
        }
        a.poll().join(); // finds its entry missing and writes it again, in the background
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!stored().containsKey("a")) {
            assertThat(System.nanoTime()).as("entry written again in time").isLessThan(deadline);
        }
        try (S3PrefixRegistry observer = registry()) {
            assertThat(observer.members()).containsExactly(A);
        }
        a.leave();
        assertThat(periodicTasks()).as("poll").isEqualTo(1);
        a.heartbeat().join();
        assertThat(stored()).isEmpty();
    }

    @Test
    void manyConcurrentJoinsAllLand() throws Exception {
        int n = 24;
        config = config.toBuilder().manifestShards(2).build(); // a dozen writers per object
        List<S3PrefixRegistry> registries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            registries.add(registry());
        }
        ExecutorService threads = Executors.newFixedThreadPool(n);
        try {
            List<CompletableFuture<NodeInfo>> joins = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                S3PrefixRegistry r = registries.get(i);
                NodeInfo node = new NodeInfo("n" + i, "10.0.2." + i, 7000);
                joins.add(CompletableFuture.supplyAsync(() -> r.register(node), threads));
            }
            drive(CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)));
        } finally {
            threads.shutdownNow();
        }
        int landedAtOnce = stored().size();
        System.out.printf("%s: %d of %d concurrent joins landed at once%n", s3.server().name(), landedAtOnce, n);
        if (!s3.server().name().toLowerCase(java.util.Locale.ROOT).contains("s3proxy")) {
            assertThat(landedAtOnce).as("no lost update with atomic conditional writes").isEqualTo(n);
        }
        // S3Proxy checks If-Match and then writes, not atomically, so racing writes can be lost there; the next
        // poll of a node whose entry is missing writes it again.
        for (int round = 0; round < 5 && stored().size() < n; round++) {
            drive(CompletableFuture.allOf(registries.stream().map(S3PrefixRegistry::poll).toArray(CompletableFuture[]::new)));
        }
        assertThat(stored()).hasSize(n);
        S3PrefixRegistry observer = registry();
        assertThat(observer.members()).hasSize(n);
    }

    private void drive(CompletableFuture<?> work) throws Exception {
        FakeTime.drive(scheduler, work, Duration.ofSeconds(120));
    }

    @Test
    void anUnchangedManifestCostsOneConditionalGetPerShard() throws Exception {
        RequestCounter counter = new RequestCounter();
        S3PrefixRegistry a = registry(countingClient(counter));
        a.register(A);
        registered(B);
        a.poll().join(); // reads what B wrote
        counter.awaitIdle(Duration.ofSeconds(10));
        counter.reset();

        a.poll().join();
        counter.awaitIdle(Duration.ofSeconds(10));
        long shardObjects = keys().stream().filter(k -> k.contains("/members-")).count();
        assertThat(counter.byKind()).containsExactly(Map.entry("GET", (long) config.manifestShards()));
        assertThat(counter.byStatus()).containsEntry("GET 304", shardObjects); // no body; absent shards are 404s
        assertThat(counter.byStatus().keySet()).isSubsetOf("GET 304", "GET 404");
        assertThat(a.members()).containsExactly(A, B);
    }

    @Test
    void etagsThatAreNotDigestsOfTheContentDoNotBreakChangeDetection() throws Exception {
        OpaqueETags kms = new OpaqueETags();
        S3AsyncClient client = s3.closeAfterTest(s3.server().asyncClientBuilder()
                .overrideConfiguration(o -> o.addExecutionInterceptor(kms)).build());
        S3PrefixRegistry a = registry(client);
        a.register(A);
        S3PrefixRegistry b = registry(client);
        b.register(B);
        RecordingListener events = new RecordingListener();
        a.watch(events);
        events.drain();
        a.poll().join();
        assertThat(events.drain()).containsExactly("+b");
        assertThat(kms.rewritten()).isPositive();

        for (int round = 0; round < 3; round++) { // renewals rewrite B's shard: a keeps B, and sees no churn
            clock.advance(config.heartbeatInterval());
            b.heartbeat().join();
            a.heartbeat().join();
            a.poll().join();
            assertThat(a.members()).containsExactly(A, B);
        }
        b.leave();
        a.poll().join();
        assertThat(events.drain()).containsExactly("-b");
    }

    @Test
    void aSecondLiveNodeWithTheSameIdIsRefused() {
        registered(A);
        S3PrefixRegistry other = registry();
        assertThatThrownBy(() -> other.register(new NodeInfo("a", "10.9.9.9", 7000)))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("node id a is already registered")
                .hasMessageContaining("10.0.0.1:7000");
    }

    @Test
    void awaitMembersOnPolls() {
        S3PrefixRegistry a = registered(A);
        // Timeouts shorter than the poll interval, so that moving to them fires no poll or heartbeat.
        Duration timeout = config.pollInterval().dividedBy(2);
        CompletableFuture<Membership> enough = a.awaitMembers(3, timeout, scheduler);
        CompletableFuture<Membership> tooMany = a.awaitMembers(4, timeout, scheduler);
        registered(B);
        registered(C);
        assertThat(enough).isNotDone();
        a.poll().join();
        assertThat(enough.join().members()).containsExactly(A, B, C);
        assertThat(tooMany).isNotDone();
        scheduler.advance(timeout);
        Membership m = tooMany.join();
        assertThat(m.timedOut()).isTrue();
        assertThat(m.members()).containsExactly(A, B, C);
    }

    @Test
    void aMissingBucketFailsStartNamingIt() {
        S3PrefixRegistry registry = new S3PrefixRegistry(s3.asyncClient(), false, "no-such-bucket-s3b", "p", config);
        open.add(registry);
        assertThatThrownBy(registry::start)
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("could not read the manifests under s3://no-such-bucket-s3b/p/" + config.group().hash() + "/");
    }

    @Test
    void openFindsTheProviderByScheme() {
        try (NodeRegistry registry = NodeRegistry.open("s3://" + s3.bucket() + "/" + prefix, config)) {
            assertThat(registry).isInstanceOf(S3PrefixRegistry.class);
            registry.start();
            registry.register(A);
            assertThat(stored()).containsOnlyKeys("a");
        }
        assertThat(stored()).isEmpty();
    }

    @Test
    void theFirstNodeCreatesTheGroupSecretAndEveryoneReadsTheSameOne() throws Exception {
        S3PrefixRegistry first = registry();
        S3PrefixRegistry second = registry();
        // Both race to create it; the conditional write lets exactly one win.
        var a = java.util.concurrent.CompletableFuture.supplyAsync(() -> first.groupSecret().orElseThrow());
        var b = java.util.concurrent.CompletableFuture.supplyAsync(() -> second.groupSecret().orElseThrow());
        byte[] secretA = a.get(60, java.util.concurrent.TimeUnit.SECONDS);
        byte[] secretB = b.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(secretA).hasSize(32).isEqualTo(secretB);
        assertThat(registry().groupSecret()).hasValueSatisfying(s -> assertThat(s).isEqualTo(secretA));
        assertThat(s3.client().listObjectsV2(r -> r.bucket(s3.bucket()).prefix(prefix + "/")).contents())
                .extracting(S3Object::key).contains(prefix + "/" + S3PrefixRegistry.SECRET_NAME);
        assertThat(first.members()).isEmpty(); // the secret is not a member
    }

    @Test
    void theBackendRefusesASecondConditionalCreate() {
        String key = prefix + "/conditional";
        s3.client().putObject(b -> b.bucket(s3.bucket()).key(key).ifNoneMatch("*"),
                software.amazon.awssdk.core.sync.RequestBody.fromString("first"));
        assertThatThrownBy(() -> s3.client().putObject(b -> b.bucket(s3.bucket()).key(key).ifNoneMatch("*"),
                software.amazon.awssdk.core.sync.RequestBody.fromString("second")))
                .isInstanceOfSatisfying(software.amazon.awssdk.services.s3.model.S3Exception.class,
                        e -> assertThat(e.statusCode()).isIn(409, 412));
    }
}
