package io.s3broadcast.p2p.cluster;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.p2p.protocol.PeerTls;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.PeerSecurity;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ClusterStrategy;
import io.s3broadcast.spi.ClusterTask;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.net.InetSocketAddress;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * The cluster strategy of one {@code Broadcast}: one peer server bound to {@link ClusterConfig#listen()}
 * shared by every run, whose inbound connections a {@link GroupRouter} hands to the run of the group named in
 * the peer's handshake; event loops for the peer connections (each run keeps its decisions on one of them);
 * a small pool for file writes of received pieces; threads for registry calls, which may block.
 */
final class PeerCluster implements ClusterStrategy {

    /**
     * Event loop threads per broadcast (peer I/O, CRC checks and the runs' decisions) on a machine of more than
     * {@value #CORES_FOR_ONE_LOOP} cores; on one of that many or fewer, one.
     */
    static final int EVENT_LOOP_THREADS = 2;

    /**
     * Up to this many cores a broadcast has one event loop: every peer connection then lives on the run's own loop, so
     * nothing a peer sends is handed to another thread. On 2-core nodes a second loop cost time (docs/results.md,
     * session 28: 8 nodes, 64 MiB, 5 MB/s links, slowest node 1.14-1.23 T*, median 1.18, with one loop against
     * 1.17-1.30, median 1.22, with two; CPU per node lower in two pairs of runs of three, within the machine's drift).
     */
    static final int CORES_FOR_ONE_LOOP = 2;

    private final ClusterConfig config;
    private final S3AsyncClient registryClient;
    private final NioEventLoopGroup loops;
    private final ExecutorService blocking;
    private final ExecutorService disk;
    private final ScheduledExecutorService timer;
    private final GroupRouter router;
    private final PendingConnections pending;
    private final PeerTls tls;
    private final Set<NodeRun> runs = ConcurrentHashMap.newKeySet();
    private final Channel server;
    private final PieceServing serving;
    private final BanListener bans;
    private final Supplier<? extends ChannelHandler> peerChannelHandler;
    private volatile boolean closed;

    private PeerCluster(ClusterConfig config, S3AsyncClient registryClient, PieceServing serving, BanListener bans,
            Supplier<? extends ChannelHandler> peerChannelHandler) {
        this.config = config;
        this.registryClient = registryClient;
        this.serving = serving;
        this.bans = bans;
        this.peerChannelHandler = peerChannelHandler;
        this.loops = new NioEventLoopGroup(eventLoopThreads(Runtime.getRuntime().availableProcessors()),
                threads("s3broadcast-peer"));
        this.blocking = Executors.newCachedThreadPool(threads("s3broadcast-registry"));
        this.disk = Executors.newFixedThreadPool(2, threads("s3broadcast-piece-write"));
        this.timer = Executors.newSingleThreadScheduledExecutor(threads("s3broadcast-cluster-timer"));
        this.router = new GroupRouter();
        this.pending = new PendingConnections(config.limits().handshakeTimeout().toNanos(),
                config.limits().maxPendingConnections());
        this.tls = tls(config.security().tls());
        try {
            this.server = new ServerBootstrap()
                    .group(loops)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            pending.accepted(ch);
                            if (tls != null) {
                                // TLS first: the router reads the handshake from the decrypted stream.
                                ch.pipeline().addLast(PeerPipeline.TLS, tls.newHandler(ch, PeerPipeline.Side.ACCEPTOR));
                            }
                            ch.pipeline().addLast(GroupRouter.NAME, router.newHandler());
                        }
                    })
                    .bind(config.listen()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            shutdown();
            throw new BroadcastException("cannot bind the peer server to " + config.listen() + ": " + e, e);
        }
    }

    /** The event loop threads of a broadcast on a machine of {@code cores} cores. */
    static int eventLoopThreads(int cores) {
        return cores <= CORES_FOR_ONE_LOOP ? 1 : EVENT_LOOP_THREADS;
    }

    static PeerCluster start(ClusterConfig config, S3AsyncClient registryClient) {
        return start(config, registryClient, null);
    }

    /**
     * A cluster whose every peer channel gets a handler from {@code peerChannelHandler} (null: none) first in its
     * pipeline ({@link NettyClusterProvider#withPeerChannelHandler}).
     */
    static PeerCluster start(ClusterConfig config, S3AsyncClient registryClient,
            Supplier<? extends ChannelHandler> peerChannelHandler) {
        return new PeerCluster(config, registryClient, PieceServing.HONEST, BanListener.NONE, peerChannelHandler);
    }

    /**
     * A cluster whose nodes put pieces on the wire through {@code serving} (tests: a lying member) and report
     * their bans to {@code bans}.
     */
    static PeerCluster start(ClusterConfig config, S3AsyncClient registryClient, PieceServing serving, BanListener bans) {
        return new PeerCluster(config, registryClient, serving, bans, null);
    }

    PieceServing serving() {
        return serving;
    }

    BanListener bans() {
        return bans;
    }

    /** Makes the handler put first in every peer channel, or null for none. */
    Supplier<? extends ChannelHandler> peerChannelHandler() {
        return peerChannelHandler;
    }

    @Override
    public ClusterRun start(ClusterTask task) {
        NodeRun run = new NodeRun(this, task);
        if (closed) {
            run.fail(new BroadcastException("the cluster strategy is closed"));
            return run;
        }
        runs.add(run);
        run.finished().whenComplete((v, e) -> runs.remove(run));
        run.start();
        return run;
    }

    ClusterConfig config() {
        return config;
    }

    S3AsyncClient registryClient() {
        return registryClient;
    }

    /** The port the peer server is bound to. */
    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    InetSocketAddress listenAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    NioEventLoopGroup loops() {
        return loops;
    }

    EventLoop nextLoop() {
        return loops.next();
    }

    ExecutorService blocking() {
        return blocking;
    }

    ExecutorService disk() {
        return disk;
    }

    ScheduledExecutorService timer() {
        return timer;
    }

    GroupRouter router() {
        return router;
    }

    PendingConnections pending() {
        return pending;
    }

    /** The TLS of peer connections, or null for plain TCP. */
    PeerTls tls() {
        return tls;
    }

    private static PeerTls tls(PeerSecurity.Tls tls) {
        if (tls == null) {
            return null;
        }
        return tls.certChain() != null
                ? PeerTls.fromPem(tls.certChain().toFile(), tls.privateKey().toFile(), tls.trustedCerts().toFile())
                : PeerTls.fromKeyStores(tls.keyStore(), tls.keyPassword(), tls.trustStore());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (NodeRun run : List.copyOf(runs)) {
            run.fail(new BroadcastException("the broadcast is closing"));
        }
        for (NodeRun run : List.copyOf(runs)) {
            try {
                run.finished().get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Exception e) {
                // close anyway
            }
        }
        server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        shutdown();
    }

    private void shutdown() {
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        blocking.shutdown();
        disk.shutdown();
        timer.shutdownNow();
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
