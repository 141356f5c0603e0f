package io.s3broadcast.bench;

import io.s3broadcast.Strategy;
import io.s3broadcast.p2p.cluster.NettyClusterProvider;
import io.s3broadcast.testkit.proxy.FaultProxy;
import io.s3broadcast.testkit.proxy.Throttle;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code fleet --level inprocess}: N nodes in this JVM. The S3 proxy gives each node its own port, counted under
 * {@code node-i} and charged to the node's download {@link Throttle}; the node's peer channels get a {@link
 * PeerLinkShaper}'s handler first (its {@code Broadcast} built with {@link
 * NettyClusterProvider#withPeerChannelHandler}), which limits their upload and charges their download to the same
 * throttle. Baselines: the Transfer Manager (one client per node, in this JVM) and aria2c (one process per node).
 */
final class InProcessFleet implements FleetCommand.FleetLevel {

    private static final Logger LOG = LoggerFactory.getLogger(InProcessFleet.class);

    private final FleetCommand.FleetSpec spec;
    private final Testbed testbed;
    private final Path dir;
    private final FaultProxy proxy;
    private final List<Throttle> downloads = new ArrayList<>();
    private final List<URI> ports = new ArrayList<>();
    private final ScheduledExecutorService timer;
    /** With join or leave: each node's throughput samples in the last trial of ours. */
    private List<List<long[]>> samples = List.of();
    /**
     * The last trial's start signal (epoch ms): our nodes' and the Transfer Manager's start gun; for aria2-flat, whose
     * processes start at once, the trial's start.
     */
    private long startMillis;
    private ChurnClock clock;

    InProcessFleet(FleetCommand.FleetSpec spec, Testbed testbed, Path dir) throws IOException {
        this.spec = spec;
        this.testbed = testbed;
        this.dir = dir;
        URI s3 = testbed.endpoint().uri();
        this.proxy = FaultProxy.builder(new InetSocketAddress(s3.getHost(), s3.getPort())).profile(spec.profile())
                .seed(spec.seed()).start();
        for (int i = 0; i < spec.nodes(); i++) {
            Throttle down = Throttle.of(spec.links().get(i).down());
            downloads.add(down);
            ports.add(proxy.openPort(source(i), down));
        }
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fleet-link-timer");
            t.setDaemon(true);
            return t;
        });
    }

    static String source(int node) {
        return "node-" + node;
    }

    Endpoint endpointOf(int node) {
        return testbed.endpoint().via(ports.get(node));
    }

    FaultProxy proxy() {
        return proxy;
    }

    /** Through the proxy's own port, whose bytes count under no node. */
    @Override
    public String warmUp() throws InterruptedException {
        return S3Warmup.run(testbed.endpoint().via(proxy.endpoint()), testbed.bucket(), testbed.key(), testbed.size());
    }

    @Override
    public FleetTrial run(String contender, int trial) throws IOException, InterruptedException {
        long[] before = s3Bytes();
        JvmCpu cpu = JvmCpu.now();
        CpuSaturation machineCpu = new CpuSaturation().start();
        startMillis = System.currentTimeMillis();
        List<FleetNode> nodes;
        try {
            nodes = switch (contender) {
                case "transfer-manager" -> FleetBaselines.transferManager(this, spec, testbed, dir, trial);
                case "aria2-flat" -> FleetBaselines.aria2Flat(this::endpointOf, spec, testbed, dir, trial, null);
                default -> ours(Strategy.parse(contender), trial);
            };
        } finally {
            machineCpu.stop();
        }
        JvmCpu used = JvmCpu.now().minus(cpu);
        long[] after = s3Bytes();
        List<FleetNode> counted = new ArrayList<>();
        Churn churn = spec.churn();
        for (FleetNode n : nodes) {
            counted.add(n.withBytesFromS3(after[n.node()] - before[n.node()]).withRole(churn.role(n.node(), spec.nodes())));
        }
        LOG.info("{} trial {}: fleet CPU {} s (GC {} s, JIT {} s)", contender, trial, used.cpuSeconds(), used.gcSeconds(),
                used.jitSeconds());
        double processes = counted.stream().map(FleetNode::cpuSeconds).filter(java.util.Objects::nonNull)
                .mapToDouble(Double::doubleValue).sum();
        FleetTrial t = FleetTrial.of(trial, counted, spec.size(), used.cpuSeconds() + processes,
                Runtime.getRuntime().availableProcessors()).withCpuSaturation(machineCpu, startMillis);
        return churn.any() ? t.withChurn(ThroughputSampler.aggregate(samples, startMillis), clock) : t;
    }

    /** The trial's start signal was given at {@code epochMillis} (by a contender that gives its own). */
    void started(long epochMillis) {
        this.startMillis = epochMillis;
    }

    private List<FleetNode> ours(Strategy strategy, int trial) throws IOException, InterruptedException {
        // No security options: LocalCluster gives the trial's nodes one random group secret.
        LocalCluster.Options options = new LocalCluster.Options(spec.nodes(), strategy, spec.tuning(), -1, 0, 0,
                spec.expectTimeout(), spec.timeout(), null);
        List<PeerLinkShaper> shapers = new ArrayList<>();
        List<ThroughputSampler> samplers = new ArrayList<>();
        for (int i = 0; i < spec.nodes(); i++) {
            samplers.add(new ThroughputSampler());
        }
        AtomicLong started = new AtomicLong();
        try {
            ClusterTrial ct = LocalCluster.run(testbed, options, dir, trial,
                    spec.churn().any() ? samplers::get : null, (i, id, base, builder) -> {
                PeerLinkShaper shaper = new PeerLinkShaper(timer, spec.links().get(i).up(), downloads.get(i));
                shapers.add(shaper);
                builder.clusterStrategy(NettyClusterProvider.withPeerChannelHandler(shaper::newHandler));
                return endpointOf(i);
            }, strategy.isCluster() ? spec.churn() : Churn.NONE, t0 -> {
                long[] base = s3Bytes();
                ChurnClock c = new ChurnClock(spec.churn(), ChurnClock.sentSince(base, this::s3Bytes), t0);
                clock = c;
                return c;
            }, started);
            samples = samplers.stream().map(ThroughputSampler::samples).toList();
            startMillis = started.get();
            List<FleetNode> nodes = new ArrayList<>();
            for (NodeResult r : ct.nodes()) {
                nodes.add(fromCluster(r, spec.links().get(r.node())));
            }
            return nodes;
        } finally {
            shapers.forEach(PeerLinkShaper::release);
        }
    }

    /** A node of {@link LocalCluster}'s trial as a fleet node; S3 bytes are filled in from the proxy later. */
    static FleetNode fromCluster(NodeResult r, FleetLink link) {
        Double p1 = null;
        Double p2 = null;
        if (r.seconds() != null && r.afterLastPiece() != null) {
            // Placed back from the end: the run's phases start after the HEAD, which the fetch's start is before.
            p2 = SingleCommand.round(r.seconds() - r.afterLastPiece().total(), 3);
            p1 = SingleCommand.round(p2 - r.phase2Seconds(), 3);
        } else if (r.seconds() != null && r.fetchSeconds() != null) {
            double started = r.seconds() - r.fetchSeconds();
            p1 = SingleCommand.round(started + r.phase1Seconds(), 3);
            p2 = SingleCommand.round(started + r.phase1Seconds() + r.phase2Seconds(), 3);
        }
        return new FleetNode(r.node(), r.nodeId(), link.describe(), r.seconds(), null, p1, p2, 0, r.bytesFromS3(),
                r.bytesFromPeers(), r.piecesStolen(), null, null, null, null, r.sha256Match(), r.error(), r.hedges(),
                r.afterLastPiece());
    }

    private long[] s3Bytes() {
        var stats = proxy.stats();
        long[] bytes = new long[spec.nodes()];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = stats.bytesToClient(source(i));
        }
        return bytes;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        proxy.close();
    }

    /** CPU, GC and JIT time of this JVM. */
    record JvmCpu(double cpuSeconds, double gcSeconds, double jitSeconds) {
        static JvmCpu now() {
            long gc = 0;
            for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
                gc += Math.max(0, b.getCollectionTime());
            }
            CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            long jitMillis = jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
            return new JvmCpu(Machine.processCpuNanos() / 1e9, gc / 1e3, jitMillis / 1e3);
        }

        JvmCpu minus(JvmCpu o) {
            return new JvmCpu(SingleCommand.round(cpuSeconds - o.cpuSeconds, 2), SingleCommand.round(gcSeconds - o.gcSeconds, 2),
                    SingleCommand.round(jitSeconds - o.jitSeconds, 2));
        }
    }

    static void ensureDir(Path p) throws IOException {
        Files.createDirectories(p);
    }
}
