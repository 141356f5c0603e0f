package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ClusterTask;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.ObjectSourceProvider;
import io.s3broadcast.spi.PeerLimits;
import io.s3broadcast.spi.PeerSecurity;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceConfig;
import io.s3broadcast.spi.SourceListener;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

/**
 * One node of the real engine on a {@link PeerCluster} the test builds itself, so that it can inject what a
 * broadcast never does: a {@link PieceServing} that lies, a {@link BanListener} that hears the node's bans. Same
 * settings as the {@link Swarm}'s nodes (its piece size, a static registry with its secret).
 */
final class EngineNode implements AutoCloseable {

    final PeerCluster cluster;
    final PieceStore store;
    final ClusterRun run;
    private final ObjectSource source;

    private EngineNode(PeerCluster cluster, ObjectSource source, PieceStore store, ClusterRun run) {
        this.cluster = cluster;
        this.source = source;
        this.store = store;
        this.run = run;
    }

    /** Starts a node listening on {@code port} that fetches {@code object} with {@code expected} nodes in all. */
    static EngineNode start(S3Fixture s3, Path dir, String registry, String nodeId, int port, int expected,
            Strategy strategy, StoredObject object, PieceServing serving, BanListener bans) throws Exception {
        return prepare(s3, dir, object).start(registry, nodeId, port, expected, ClusterConfig.DEFAULT_OVERLAY_PEERS,
                strategy, serving, bans, SourceListener.NONE);
    }

    /**
     * A node's S3 source, the object's head and the node's store, made before the node starts: {@link
     * Prepared#start} only joins the cluster, so a test can start nodes within milliseconds of an event.
     */
    static Prepared prepare(S3Fixture s3, Path dir, StoredObject object) throws Exception {
        Files.createDirectories(dir);
        ObjectSource source = ServiceLoader.load(ObjectSourceProvider.class).findFirst().orElseThrow()
                .create(new SourceConfig(null, s3.endpoint(), s3.region(), s3.credentialsProvider(), true, "netty", 4,
                        4L * Swarm.PIECE_SIZE, 3, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(30),
                        Duration.ofSeconds(10), Duration.ofSeconds(10)));
        ObjectInfo info = source.head(object.bucket(), object.key()).get(30, TimeUnit.SECONDS);
        PieceStore store = PieceStore.create(dir.resolve("object.bin"), new PieceLayout(info.size(), Swarm.PIECE_SIZE));
        return new Prepared(source, info, store);
    }

    /** What {@link #prepare} made. */
    record Prepared(ObjectSource source, ObjectInfo info, PieceStore store) {

        /**
         * Starts the node listening on {@code port}, keeping {@code overlayPeers} peers, with {@code expected} nodes
         * in all; {@code listener} hears its run.
         */
        EngineNode start(String registry, String nodeId, int port, int expected, int overlayPeers, Strategy strategy,
                PieceServing serving, BanListener bans, SourceListener listener) throws Exception {
            ClusterConfig config = new ClusterConfig(registry, nodeId, new InetSocketAddress("127.0.0.1", port),
                    "127.0.0.1", null, expected, Duration.ofSeconds(30), 4, Duration.ofSeconds(30),
                    Duration.ofSeconds(10), 4, 8,
                    PeerSecurity.fromRegistry().withSecret(Swarm.SECRET.getBytes(StandardCharsets.UTF_8)),
                    PeerLimits.defaults(), Ticker.systemTicker()).withOverlayPeers(overlayPeers);
            PeerCluster cluster = PeerCluster.start(config, null, serving, bans);
            ClusterRun run = cluster.start(new ClusterTask(strategy, info, store, source, listener));
            return new EngineNode(cluster, source, store, run);
        }
    }
    @Override
    public void close() throws Exception {
        run.completion().cancel(true);
        cluster.close();
        store.close();
        source.close();
    }
}
