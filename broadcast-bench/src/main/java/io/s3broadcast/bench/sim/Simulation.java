package io.s3broadcast.bench.sim;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.Shares;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.spi.PieceRun;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Locale;

/**
 * A discrete-event simulation of one broadcast: {@link SimConfig#nodes()} {@link SimNode}s on an overlay
 * ({@link Overlay}), their links and S3 in a {@link FluidNetwork}, all on one {@link EventQueue}. Deterministic: the
 * same configuration and seed give the same result.
 */
public final class Simulation {

    private final SimConfig config;
    private final EventQueue events = new EventQueue();
    private final FluidNetwork network;
    private final List<SimNode> nodes = new ArrayList<>();
    private int completed;
    private Overlay overlay;
    private Path perNode;

    public Simulation(SimConfig config) {
        this.config = config;
        this.network = new FluidNetwork(events, config.down(), config.up(), config.profile().aggregateCap(),
                config.step().toNanos(), config.maxMin(), config.hostCpu() == null ? 0 : config.hostCpu().cores());
    }

    /** Also writes where each node's time went to {@code file} ({@link #writePerNode}); null: not. */
    public Simulation perNode(Path file) {
        this.perNode = file;
        return this;
    }

    SimConfig config() {
        return config;
    }

    EventQueue events() {
        return events;
    }

    FluidNetwork network() {
        return network;
    }

    void nodeComplete(SimNode node) {
        completed++;
    }

    /** Runs the broadcast to the end (or the configured limit) and returns what happened. */
    public SimResult run() {
        long wallStart = System.nanoTime();
        int n = config.nodes();
        int pieceCount = config.pieceCount();
        ClusterPlan plan = ClusterPlan.of(config.strategy());
        for (int i = 0; i < n; i++) {
            nodes.add(new SimNode(this, i, String.format(Locale.ROOT, "node-%06d", i)));
        }
        // As NodeShare.of: nodes sorted by id (here: by index), the sizing of the first (largest) share.
        int sharing = plan.sharingNodes(n);
        WorkSizing policy = WorkSizing.computed(config.maxConnections());
        WorkSizing.Sizing sizing = policy.size(
                WorkSizing.Share.of(Shares.end(pieceCount, sharing, 0), config.pieceSize(), sharing));
        List<List<PieceRun>> shares = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            shares.add(plan.share(pieceCount, sharing, sharing == 1 ? 0 : i, sizing));
        }
        overlay = config.strategy() == Strategy.FLAT_TREE ? Overlay.none(n)
                : config.fullMesh() ? Overlay.fullMesh(n)
                : config.overlayShape().dialled()
                        ? Overlay.dialled(n, config.peers(), config.overlayShape().first(config.peers()), mix(config.seed(), 0, 5))
                        : Overlay.random(n, config.peers(), mix(config.seed(), 0, 5));
        HostCpu cpu = config.hostCpu();
        if (cpu != null) {
            for (SimNode node : nodes) {
                node.cpuCosts(cpu.takenIn(config.down()[node.index], overlay.neighbours(node.index).size(),
                        config.pieceSize()), cpu.passedOn());
            }
        }
        for (int i = 0; i < n; i++) {
            for (int j : overlay.neighbours(i)) {
                nodes.get(i).connect(nodes.get(j), shares.get(j).size());
            }
        }
        long interval = config.chokeInterval().toNanos();
        // With a shared host, the nodes' cold starts share its cores (HostCpu).
        long start = cpu == null ? config.start().toNanos() : cpu.startNanos(n, config.start().toNanos());
        for (SimNode node : nodes) {
            events.after(start, () -> node.begin(shares.get(node.index), sizing));
            scheduleChoke(node, interval);
        }
        if (config.strategy() != Strategy.FLAT_TREE && !config.fullMesh() && config.overlayShape().dialled()) {
            // The dialler's refill: a node still short of peers after the grace dials the rest (OverlayQuota.outboundCap).
            Overlay built = overlay;
            Random fillRandom = new Random(mix(config.seed(), 0, 6));
            events.after(start + config.overlayShape().grace().toNanos(), () -> {
                int k = config.peers();
                for (int[] e : built.fill(k, config.overlayShape().first(k), config.overlayShape().accept(k), fillRandom)) {
                    nodes.get(e[0]).connectLate(nodes.get(e[1]));
                    nodes.get(e[1]).connectLate(nodes.get(e[0]));
                }
            });
        }
        int[] degree0 = new int[n];
        for (int i = 0; i < n; i++) {
            degree0[i] = overlay.neighbours(i).size();
        }
        boolean done = events.run(() -> completed == n, config.limit().toNanos());
        if (perNode != null) {
            writePerNode(degree0);
        }
        return SimResult.of(config, start, nodes, overlay, sizing, events, network, done,
                (System.nanoTime() - wallStart) / 1e9);
    }

    /**
     * Where each node's time went, one line per node, for finding what the slowest wait for ({@code simulate
     * --per-node}): its index, peers at the start (before the refill), peers at the end, its peers' mean peers, the
     * share of its peers' uploads it may expect (the sum over its peers of 1 / their peers), when it held its first
     * piece, a tenth, nine tenths and all of its pieces (virtual seconds), bytes from S3 and from and to peers, its
     * peers' indices, then each piece's arrival as {@code seconds:from} ({@code from} a node's index, -1 for S3).
     */
    private void writePerNode(int[] degree0) {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(perNode))) {
            w.println("# node peersAtStart peers peersPeersMean uploadShare firstPiece tenth nineTenths lastPiece"
                    + " s3Bytes peerBytesIn peerBytesOut | peers | piece arrivals (seconds:from, -1 = S3)");
            for (SimNode node : nodes) {
                List<Integer> peers = overlay.neighbours(node.index);
                double peersPeers = 0;
                double share = 0;
                for (int j : peers) {
                    int d = overlay.neighbours(j).size();
                    peersPeers += d;
                    share += 1.0 / d;
                }
                StringBuilder sb = new StringBuilder();
                sb.append(String.format(Locale.ROOT, "%d %d %d %.2f %.3f %.4f %.4f %.4f %.4f %d %d %d |", node.index,
                        degree0[node.index], peers.size(), peers.isEmpty() ? 0 : peersPeers / peers.size(), share,
                        node.firstPiece / 1e9, node.tenth / 1e9, node.nineTenths / 1e9, node.lastPiece / 1e9,
                        node.s3Bytes, node.peerBytesIn, node.peerBytesOut));
                for (int j : peers) {
                    sb.append(' ').append(j);
                }
                sb.append(" |");
                for (int p = 0; p < config.pieceCount(); p++) {
                    sb.append(String.format(Locale.ROOT, " %.4f:%d", node.arrivedAt[p] / 1e9, node.arrivedFrom[p]));
                }
                w.println(sb);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void scheduleChoke(SimNode node, long interval) {
        events.after(interval, () -> {
            if (completed < config.nodes()) {
                node.chokeRound();
                scheduleChoke(node, interval);
            }
        });
    }

    /** A well-mixed seed from a run seed, a node index and a purpose (SplitMix64's finaliser). */
    static long mix(long seed, int index, int purpose) {
        long z = seed + 0x9E3779B97F4A7C15L * (index + 1) + 0xD1B54A32D192ED03L * purpose;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
