package io.s3broadcast.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.Membership;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.registry.NodeRegistry;
import io.s3broadcast.registry.RegistryConfig;
import io.s3broadcast.registry.RegistryException;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** The ZooKeeper registry against an in-process ZooKeeper server; each test uses a group of its own. */
class ZooKeeperRegistryIT {

    private static final NodeInfo A = new NodeInfo("a", "127.0.0.1", 7001);
    private static final NodeInfo B = new NodeInfo("b", "127.0.0.1", 7002);
    private static final NodeInfo C = new NodeInfo("c", "127.0.0.1", 7003);

    private static TestingServer server;

    private final List<AutoCloseable> open = new ArrayList<>();
    private RegistryConfig config;
    private String spec;

    @BeforeAll
    static void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @org.junit.jupiter.api.BeforeEach
    void group(TestInfo test) {
        config = RegistryConfig.builder(GroupId.of("bucket", "key", "etag", test.getDisplayName()))
                .sessionTimeout(Duration.ofSeconds(10))
                .operationTimeout(Duration.ofSeconds(20))
                .build();
        spec = "zk://" + server.getConnectString() + "/it/registry";
    }

    private NodeRegistry started() {
        NodeRegistry registry = NodeRegistry.open(spec, config);
        open.add(registry);
        registry.start();
        return registry;
    }

    private NodeRegistry registered(NodeInfo node) {
        NodeRegistry registry = started();
        registry.register(node);
        return registry;
    }

    @Test
    void membersJoinAndLeaveAndWatchersHearIt() throws Exception {
        NodeRegistry a = started();
        assertThat(a).isInstanceOf(ZooKeeperRegistry.class);
        assertThat(((ZooKeeperRegistry) a).groupPath()).isEqualTo("/it/registry/" + config.group().hash());
        EventQueue events = new EventQueue();
        a.watch(events);
        a.register(A);
        events.expect("+a");

        NodeRegistry b = registered(B);
        events.expect("+b");
        assertThat(b.members()).containsExactly(A, B);

        b.leave();
        events.expect("-b");
        assertThat(b.members()).containsExactly(A);
        assertThat(b.self()).isEmpty();

        NodeRegistry c = registered(C);
        events.expect("+c");
        c.close();
        events.expect("-c");
        assertThat(a.members()).containsExactly(A);
        events.expectNothingYet();
    }

    @Test
    void registriesOfOneProcessShareOneSessionUntilTheLastCloses() throws Exception {
        int sessionMillis = (int) config.sessionTimeout().toMillis();
        int connectMillis = (int) Math.min(sessionMillis, config.operationTimeout().toMillis());
        String connect = server.getConnectString();
        NodeRegistry a = registered(A);
        NodeRegistry b = registered(B);
        long sessionA = ((ZooKeeperRegistry) a).sessionId();
        assertThat(((ZooKeeperRegistry) b).sessionId()).isEqualTo(sessionA);
        assertThat(SharedSessions.users(connect, sessionMillis, connectMillis)).isEqualTo(2);
        assertThat(b.members()).containsExactly(A, B);
        b.close();
        assertThat(SharedSessions.users(connect, sessionMillis, connectMillis)).isEqualTo(1);
        a.close();
        assertThat(SharedSessions.users(connect, sessionMillis, connectMillis)).isZero();
        NodeRegistry c = registered(C); // a new session for the next run
        assertThat(((ZooKeeperRegistry) c).sessionId()).isNotEqualTo(sessionA);
        assertThat(c.members()).containsExactly(C);
    }

    @Test
    void aJoinCostsEachWatchingRegistryOneListingAndOneRead() throws Exception {
        List<NodeRegistry> fleet = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            fleet.add(registered(new NodeInfo("n" + i, "127.0.0.1", 8000 + i)));
        }
        EventQueue events = new EventQueue();
        fleet.get(0).watch(events);
        for (int i = 0; i < 10; i++) {
            events.expect("+n" + i);
        }
        for (NodeRegistry r : fleet) { // every registry has seen every join
            r.awaitMembers(10, Duration.ofMinutes(1), new ManualScheduler()).get(20, TimeUnit.SECONDS);
        }
        long before = fleet.stream().mapToLong(r -> ((ZooKeeperRegistry) r).reads()).sum();
        registered(new NodeInfo("late", "127.0.0.1", 8100));
        events.expect("+late");
        for (NodeRegistry r : fleet) { // every registry hears it once
            CompletableFuture<Void> heard = new CompletableFuture<>();
            try (NodeRegistry.Watch w = r.watch(new io.s3broadcast.registry.MembershipListener() {
                @Override
                public void joined(NodeInfo node) {
                    if (node.nodeId().equals("late")) {
                        heard.complete(null);
                    }
                }
            })) {
                heard.get(20, TimeUnit.SECONDS);
            }
        }
        long after = fleet.stream().mapToLong(r -> ((ZooKeeperRegistry) r).reads()).sum();
        // One listing plus one data read per watching registry (the new registry's own start is not counted).
        assertThat(after - before).isEqualTo(2L * fleet.size());
    }

    @Test
    void aNodeWhoseSessionDiesDisappearsThenRegistersAgain() throws Exception {
        NodeRegistry a = registered(A);
        EventQueue events = new EventQueue();
        a.watch(events);
        events.expect("+a");

        CuratorFramework clientB = CuratorFrameworkFactory.newClient(server.getConnectString(), 10_000, 10_000, new RetryOneTime(100));
        open.add(clientB);
        // b's znode is created again on RECONNECTED, after LOST, on this one listener thread: held until a has seen
        // -b, or a's listing could find the new znode already there and report neither -b nor +b.
        CountDownLatch seenLeaving = new CountDownLatch(1);
        clientB.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.LOST || state == ConnectionState.RECONNECTED) {
                try {
                    seenLeaving.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        clientB.start();
        ZooKeeperRegistry b = ZooKeeperRegistry.create(clientB, "/it/registry", config);
        open.add(b);
        b.start();
        b.register(B);
        events.expect("+b");

        try {
            killSession(clientB);
            events.expect("-b");
        } finally {
            seenLeaving.countDown();
        }
        events.expect("+b");
        assertThat(a.members()).containsExactly(A, B);
    }

    @Test
    void awaitMembersCompletesWhenTheExpectedNumberIsThere() throws Exception {
        NodeRegistry a = registered(A);
        ManualScheduler time = new ManualScheduler();
        CompletableFuture<Membership> wait = a.awaitMembers(3, Duration.ofMinutes(1), time);
        registered(B);
        assertThat(wait).isNotDone();
        registered(C);
        Membership m = wait.get(20, TimeUnit.SECONDS);
        assertThat(m.members()).containsExactly(A, B, C);
        assertThat(m.timedOut()).isFalse();
        assertThat(time.scheduled()).isEmpty();
    }

    @Test
    void awaitMembersStartsWithWhoeverIsThereAtTheTimeout() throws Exception {
        NodeRegistry a = registered(A);
        EventQueue events = new EventQueue();
        a.watch(events);
        events.expect("+a");
        registered(B);
        events.expect("+b");
        ManualScheduler time = new ManualScheduler();
        CompletableFuture<Membership> wait = a.awaitMembers(5, Duration.ofMinutes(1), time);
        assertThat(wait).isNotDone();
        time.advance(Duration.ofMinutes(1));
        Membership m = wait.get(20, TimeUnit.SECONDS);
        assertThat(m.members()).containsExactly(A, B);
        assertThat(m.timedOut()).isTrue();
    }

    @Test
    void aSecondLiveNodeWithTheSameIdIsRefused() {
        registered(A);
        NodeRegistry other = started();
        NodeInfo impostor = new NodeInfo("a", "127.0.0.2", 9999);
        assertThatThrownBy(() -> other.register(impostor))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("node id a is already registered")
                .hasMessageContaining("127.0.0.1:7001");
    }

    @Test
    void groupsDoNotSeeEachOther() throws Exception {
        NodeRegistry a = registered(A);
        RegistryConfig otherGroup = RegistryConfig.builder(GroupId.of("bucket", "key", "other-etag")).build();
        try (NodeRegistry b = NodeRegistry.open(spec, otherGroup)) {
            b.start();
            b.register(B);
            assertThat(b.members()).containsExactly(B);
            assertThat(a.members()).containsExactly(A);
        }
    }

    @Test
    void anUnreachableEnsembleFailsStartWithItsAddress() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String unreachable = "zk://127.0.0.1:" + port + "/x";
        NodeRegistry registry = NodeRegistry.open(unreachable, config.toBuilder().operationTimeout(Duration.ofSeconds(1)).build());
        open.add(registry);
        assertThatThrownBy(registry::start)
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("could not connect to ZooKeeper at " + unreachable);
    }

    /**
     * Ends a client's session on the server, as a crash followed by the session timeout would: the client's handle
     * is expired on the client first (it starts a new session and never reconnects to the old one, which could move
     * the session back before the close below), then a second handle joins the old session and closes it. On a
     * loaded machine the server may expire the session before the second handle gets in; the twin then reads
     * {@code Expired}, and the session is just as dead.
     */
    private static void killSession(CuratorFramework client) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        long sessionId = zk.getSessionId();
        byte[] password = zk.getSessionPasswd();
        zk.getTestable().injectSessionExpiration();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(server.getConnectString(), 10_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected
                    || event.getState() == Watcher.Event.KeeperState.Expired) {
                connected.countDown();
            }
        }, sessionId, password);
        try {
            assertThat(connected.await(20, TimeUnit.SECONDS)).as("second handle joined the session or found it expired").isTrue();
        } finally {
            twin.close();
        }
    }

    @Test
    void theFirstNodeCreatesTheGroupSecretAndEveryoneReadsTheSameOne() throws Exception {
        NodeRegistry a = started();
        NodeRegistry b = started();
        var first = java.util.concurrent.CompletableFuture.supplyAsync(() -> a.groupSecret().orElseThrow());
        var second = java.util.concurrent.CompletableFuture.supplyAsync(() -> b.groupSecret().orElseThrow());
        byte[] secret = first.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(secret).hasSize(32).isEqualTo(second.get(30, java.util.concurrent.TimeUnit.SECONDS));
        assertThat(started().groupSecret()).hasValueSatisfying(s -> assertThat(s).isEqualTo(secret));
        assertThat(a.members()).isEmpty(); // the secret is not a member
    }
}
