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
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
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

    private S3PrefixRegistry registry(int pageSize) {
        S3PrefixRegistry registry = new S3PrefixRegistry(s3.asyncClient(), false, s3.bucket(), prefix, config, pageSize);
        open.add(registry);
        registry.start();
        return registry;
    }

    private S3PrefixRegistry registered(NodeInfo node) {
        S3PrefixRegistry registry = registry(1000);
        registry.register(node);
        return registry;
    }

    private List<String> keys() {
        return s3.client().listObjectsV2(b -> b.bucket(s3.bucket()).prefix(prefix + "/")).contents().stream()
                .map(S3Object::key).toList();
    }

    private long periodicTasks() {
        return scheduler.scheduled().stream().filter(ManualScheduler.Scheduled::periodic).count();
    }

    @Test
    void eachNodeWritesOneObjectAndPollsFindTheOthers() {
        S3PrefixRegistry a = registered(A);
        RecordingListener events = new RecordingListener();
        a.watch(events);
        assertThat(events.drain()).containsExactly("+a");

        S3PrefixRegistry b = registered(B);
        assertThat(b.members()).containsExactly(A, B);
        String groupDir = prefix + "/" + config.group().hash() + "/";
        assertThat(keys()).containsExactlyInAnyOrder(groupDir + "a", groupDir + "b");
        assertThat(a.location()).isEqualTo("s3://" + s3.bucket() + "/" + groupDir);
        NodeEntry stored = NodeEntry.parse(s3.getBytes(groupDir + "b"));
        assertThat(stored.node()).isEqualTo(B);
        assertThat(stored.joinedAt()).isEqualTo(clock.instant());

        a.poll().join();
        assertThat(events.drain()).containsExactly("+b");
        assertThat(a.members()).containsExactly(A, B);

        b.leave();
        assertThat(keys()).containsExactly(groupDir + "a");
        a.poll().join();
        assertThat(events.drain()).containsExactly("-b");

        b.close();
        a.close();
        assertThat(keys()).isEmpty();
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
        scheduler.advance(config.pollInterval()); // a's poll (and B's) start; a's reports B when its listing completes
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
    void listingIsPaginated() {
        IntStream.range(0, 5).forEach(i -> registered(new NodeInfo("n" + i, "10.0.1." + i, 7000)));
        S3PrefixRegistry observer = registry(2);
        assertThat(observer.members()).extracting(NodeInfo::nodeId).containsExactly("n0", "n1", "n2", "n3", "n4");
    }

    @Test
    void anEntryNotRefreshedWithinTheTimeoutIsGoneAndAWriteBringsItBack() {
        S3PrefixRegistry a = registered(A);
        registered(B);
        a.poll().join();
        RecordingListener events = new RecordingListener();
        a.watch(events);
        events.drain();

        clock.advance(STALE_AFTER.minusSeconds(5));
        a.poll().join();
        assertThat(a.members()).containsExactly(A, B);

        clock.advance(Duration.ofSeconds(10)); // B's process is gone: no heartbeat, no delete
        a.poll().join();
        assertThat(events.drain()).containsExactly("-b");
        assertThat(a.members()).containsExactly(A);

        NodeRegistry bAgain = registered(B); // a new process with the same id: the stale entry does not stop it
        a.poll().join();
        assertThat(events.drain()).containsExactly("+b");
        assertThat(a.members()).containsExactly(A, B);
        // (bAgain itself sees A as stale: on fake time A's heartbeats cannot move S3's LastModified on.)
        assertThat(bAgain.self()).contains(B);
    }

    @Test
    void theHeartbeatWritesTheEntryAgain() {
        S3PrefixRegistry a = registry(1000);
        assertThat(periodicTasks()).as("poll").isEqualTo(1);
        a.register(A);
        assertThat(periodicTasks()).as("poll and heartbeat").isEqualTo(2);
        String key = prefix + "/" + config.group().hash() + "/a";
        byte[] body = s3.getBytes(key);
        s3.client().deleteObject(b -> b.bucket(s3.bucket()).key(key));
        a.heartbeat().join();
        assertThat(s3.getBytes(key)).isEqualTo(body);
        try (S3PrefixRegistry observer = registry(1000)) {
            assertThat(observer.members()).containsExactly(A);
        }
        a.leave();
        assertThat(periodicTasks()).as("poll").isEqualTo(1);
        a.heartbeat().join();
        assertThat(keys()).isEmpty();
    }

    @Test
    void entriesThatAreNotNodesAreIgnored() {
        String groupDir = prefix + "/" + config.group().hash() + "/";
        s3.putBytes(groupDir + "junk", "not json".getBytes(StandardCharsets.UTF_8));
        s3.putBytes(groupDir + "x/y", new NodeEntry(C, clock.instant()).toJson());
        s3.putBytes(groupDir + "liar", new NodeEntry(C, clock.instant()).toJson());
        S3PrefixRegistry a = registered(A);
        assertThat(a.members()).containsExactly(A);
    }

    @Test
    void aSecondLiveNodeWithTheSameIdIsRefused() {
        registered(A);
        S3PrefixRegistry other = registry(1000);
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
        S3PrefixRegistry registry = new S3PrefixRegistry(s3.asyncClient(), false, "no-such-bucket-s3b", "p", config, 1000);
        open.add(registry);
        assertThatThrownBy(registry::start)
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("could not list s3://no-such-bucket-s3b/p/" + config.group().hash() + "/");
    }

    @Test
    void openFindsTheProviderByScheme() {
        try (NodeRegistry registry = NodeRegistry.open("s3://" + s3.bucket() + "/" + prefix, config)) {
            assertThat(registry).isInstanceOf(S3PrefixRegistry.class);
            registry.start();
            registry.register(A);
            assertThat(keys()).containsExactly(prefix + "/" + config.group().hash() + "/a");
        }
        assertThat(keys()).isEmpty();
    }

    @Test
    void theFirstNodeCreatesTheGroupSecretAndEveryoneReadsTheSameOne() throws Exception {
        S3PrefixRegistry first = registry(1000);
        S3PrefixRegistry second = registry(1000);
        // Both race to create it; the conditional write lets exactly one win.
        var a = java.util.concurrent.CompletableFuture.supplyAsync(() -> first.groupSecret().orElseThrow());
        var b = java.util.concurrent.CompletableFuture.supplyAsync(() -> second.groupSecret().orElseThrow());
        byte[] secretA = a.get(60, java.util.concurrent.TimeUnit.SECONDS);
        byte[] secretB = b.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(secretA).hasSize(32).isEqualTo(secretB);
        assertThat(registry(1000).groupSecret()).hasValueSatisfying(s -> assertThat(s).isEqualTo(secretA));
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
