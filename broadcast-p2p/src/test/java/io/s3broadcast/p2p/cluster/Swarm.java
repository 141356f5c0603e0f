package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.TestCluster;
import io.s3broadcast.testkit.proxy.FaultProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * The cluster ITs' settings on the test kit's {@link TestCluster}: small pieces and works so a few MiB
 * make many, listeners per node, and a way to wait for all nodes but the ones a test killed.
 * {@code Swarm.of(s3, dir, strategy, n).start(object)}.
 */
final class Swarm implements AutoCloseable {

    static final int PIECE_SIZE = 64 * 1024;

    /** The group secret of swarms in a static registry (an S3 or ZooKeeper registry generates and holds one). */
    static final String SECRET = "swarm-test-secret-0123456789";

    final TestCluster cluster;
    final List<Path> dirs;
    final List<Integer> ports;
    final List<FetchHandle> handles = new ArrayList<>();

    private Swarm(S3Fixture s3, Path dir, Strategy strategy, int n, String registry, IntFunction<FetchListener> listeners,
            String idPrefix) {
        this(s3, dir, strategy, n, 0, registry, listeners, idPrefix, 0);
    }

    private Swarm(S3Fixture s3, Path dir, Strategy strategy, int n, int extra, String registry,
            IntFunction<FetchListener> listeners, String idPrefix) {
        this(s3, dir, strategy, n, extra, registry, listeners, idPrefix, 0);
    }

    /** {@code extra} more members in the static registry ({@link #ports} after the nodes'), run by the test itself. */
    private Swarm(S3Fixture s3, Path dir, Strategy strategy, int n, int extra, String registry,
            IntFunction<FetchListener> listeners, String idPrefix, int overlayPeers) {
        this(s3, dir, strategy, n, extra, registry, listeners, idPrefix, overlayPeers, node -> { });
    }

    private Swarm(S3Fixture s3, Path dir, Strategy strategy, int n, int extra, String registry,
            IntFunction<FetchListener> listeners, String idPrefix, int overlayPeers, Consumer<Broadcast.Builder> tweak) {
        TestCluster.Builder b = TestCluster.builder(s3).nodes(n).extraMembers(extra).strategy(strategy).directory(dir)
                .idPrefix(idPrefix)
                .configure((i, node) -> {
                    node.pieceSize(PIECE_SIZE).rangeSize(4L * PIECE_SIZE).workSize(4).linger(Duration.ofSeconds(10));
                    if (overlayPeers > 0) {
                        node.overlayPeers(overlayPeers);
                    }
                    FetchListener l = listeners == null ? null : listeners.apply(i);
                    if (l != null) {
                        node.addListener(l);
                    }
                    tweak.accept(node);
                });
        if (registry != null) {
            b.registry(registry);
        }
        if (registry == null || registry.startsWith("static:")) {
            b.secret(SECRET);
        }
        this.cluster = b.start();
        this.dirs = IntStream.range(0, n).mapToObj(cluster::directory).toList();
        this.ports = IntStream.range(0, n + extra).mapToObj(i -> cluster.peerAddress(i).getPort()).toList();
    }

    static Swarm of(S3Fixture s3, Path dir, Strategy strategy, int n) {
        return new Swarm(s3, dir, strategy, n, null, null, "node-");
    }

    static Swarm of(S3Fixture s3, Path dir, Strategy strategy, int n, String registry, IntFunction<FetchListener> listeners) {
        return new Swarm(s3, dir, strategy, n, registry, listeners, "node-");
    }

    /** Nodes named {@code idPrefix + i}, e.g. a second swarm joining the first one's registry. */
    static Swarm of(S3Fixture s3, Path dir, Strategy strategy, int n, String registry, IntFunction<FetchListener> listeners,
            String idPrefix) {
        return new Swarm(s3, dir, strategy, n, registry, listeners, idPrefix);
    }

    /** Nodes named {@code idPrefix + i}, each builder changed by {@code tweak} last (another endpoint, say). */
    static Swarm of(S3Fixture s3, Path dir, Strategy strategy, int n, String registry, IntFunction<FetchListener> listeners,
            String idPrefix, Consumer<Broadcast.Builder> tweak) {
        return new Swarm(s3, dir, strategy, n, 0, registry, listeners, idPrefix, 0, tweak);
    }

    /** {@code n} nodes, each keeping {@code overlayPeers} peers. */
    static Swarm withOverlay(S3Fixture s3, Path dir, Strategy strategy, int n, int overlayPeers,
            IntFunction<FetchListener> listeners) {
        return new Swarm(s3, dir, strategy, n, 0, null, listeners, "node-", overlayPeers);
    }

    /** {@code n} nodes, and {@code extra} more members of the static registry that the test runs itself. */
    static Swarm withExtraMembers(S3Fixture s3, Path dir, Strategy strategy, int n, int extra) {
        return new Swarm(s3, dir, strategy, n, extra, null, null, "node-");
    }

    /** A proxy in front of {@code s3} that sends each response at {@code bytesPerSecond}, closed after the test. */
    static FaultProxy slowS3(S3Fixture s3, long bytesPerSecond) throws IOException {
        return s3.closeAfterTest(FaultProxy.builder(new InetSocketAddress("127.0.0.1", s3.endpoint().getPort()))
                .perConnectionResponseRate(bytesPerSecond).start());
    }

    /** An S3-prefix registry spec under the test's prefix. */
    static String s3Registry(S3Fixture s3) {
        return "s3://" + s3.bucket() + "/" + s3.key("registry");
    }

    /** Starts the fetch on every node at once. */
    Swarm start(StoredObject object) {
        handles.addAll(cluster.start(FetchRequest.of(object.bucket(), object.key())));
        return this;
    }

    /** Waits for every fetch that was not killed and checks its file against the object. */
    List<CompletedFetch> awaitAll(StoredObject object, List<Integer> killed) throws Exception {
        List<CompletedFetch> done = new ArrayList<>();
        for (int i = 0; i < handles.size(); i++) {
            if (killed.contains(i)) {
                continue;
            }
            CompletedFetch r = handles.get(i).completionFuture().get(120, TimeUnit.SECONDS);
            assertEquals(object.size(), Files.size(r.path()), "size on node " + i);
            assertEquals(object.sha256(), TestCluster.sha256(r.path()), "SHA-256 on node " + i);
            done.add(r);
        }
        return done;
    }

    static String sha256(Path file) {
        return TestCluster.sha256(file);
    }

    static long bytesFromS3(List<CompletedFetch> results) {
        return TestCluster.bytesFromS3(results);
    }

    @Override
    public void close() {
        cluster.close();
    }
}
