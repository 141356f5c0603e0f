package io.s3broadcast.bench.sim;

import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.proxy.S3Profile;
import java.time.Duration;
import java.util.Objects;

/**
 * One simulated broadcast.
 *
 * @param strategy the strategy every node runs
 * @param size object bytes
 * @param pieceSize bytes per piece ({@code simulate} sizes it as Broadcast does for a cluster of its nodes, {@code PieceSizing})
 * @param down each node's download capacity, bytes per second, 0 for unlimited
 * @param up each node's upload capacity, bytes per second, 0 for unlimited
 * @param profile how S3 answers (per-GET rate draw, first-byte latency, caps): the object the fleet's proxy uses
 * @param seed seeds S3's draws, the overlay and each node's policies
 * @param peers peers per node at most in the overlay; 0 for a full mesh
 * @param maxConnections S3 connections per node at most (Broadcast's default 16; the work sizing picks fewer)
 * @param latency one-way latency of a control message between nodes
 * @param afterLastPiece a fixed time each node spends after its last piece (checks, fsync, rename), added to its
 *     completion; with {@code hostCpu}, the CPU-seconds of that work on one core, shared with the other nodes' ends
 *     ({@link HostCpu#endsNanos}); calibrated against the fleet, see docs/scale.md
 * @param start a fixed time from the common start to a node's first GET (HEAD, registry, connections), calibrated
 * @param spotCheck a fixed time the cooperative strategies spend after the last piece on top of
 *     {@code afterLastPiece} (the spot check against S3), calibrated
 * @param peerEfficiency the share of a link's capacity piece bytes between nodes get (the rest: TCP, shaping and
 *     protocol losses the fluid model does not see), calibrated; 1 for none
 * @param requestTimeout a piece requested from a peer and not delivered within this is requested elsewhere (30 s)
 * @param step rate recomputation step of the fluid model, zero for at every change
 * @param chokePolicy {@code cooperative} (default) or {@code tit-for-tat}
 * @param unchokeSlots regular unchoke slots (15 for cooperative, 4 for tit-for-tat by default)
 * @param chokeInterval time between choke rounds (default 10 s)
 * @param maxRequestsPerPeer request pipeline cap per peer (default 8)
 * @param requestQueueTime the adaptive request depth's queue time (default 1 s; zero: fixed at the cap)
 * @param limit virtual time after which the run stops, unfinished
 * @param maxMin links shared max-min fair (default) or equally per flow ({@link FluidNetwork})
 * @param hostCpu the host's cores every node shares and what CPU work costs ({@link HostCpu}); null (the default)
 *     for nodes with cores of their own, whose CPU is not modelled
 * @param overlayShape how a bounded overlay is built ({@link OverlayShape}; the engine's by default)
 */
public record SimConfig(Strategy strategy, long size, int pieceSize, long[] down, long[] up, S3Profile profile,
        long seed, int peers, int maxConnections, Duration latency, Duration afterLastPiece, Duration start,
        Duration spotCheck, double peerEfficiency, Duration requestTimeout, Duration step,
        String chokePolicy, int unchokeSlots, Duration chokeInterval, int maxRequestsPerPeer,
        Duration requestQueueTime, Duration limit, boolean maxMin, HostCpu hostCpu, OverlayShape overlayShape) {

    /**
     * How a bounded overlay is built (above {@code peers + 1} nodes).
     *
     * @param dialled true: as the engine's dialler ({@link Overlay#dialled}: each node dials half its peers, the
     *     accept bound caps them, nodes short of {@code peers} dial the rest after {@code grace}); false: the random
     *     overlay of at most {@code peers} ({@link Overlay#random}), fixed
     * @param acceptPeers the most peers a node accepts ({@code ClusterConfig.acceptPeers}); 0 for the engine's
     *     {@code peers + max(2, peers / 4)}
     * @param grace how long a node short of peers waits before it dials them all ({@code
     *     Dialer.SHORT_OF_PEERS_GRACE_NANOS}, 1 s), from the start
     * @param acceptFirst the most peers a node has when it accepts a member's first dial ({@code
     *     Connections}: {@code overlayPeers} in a bounded overlay since session 23); a member it refused and that
     *     dials it again is accepted up to {@code acceptPeers}. 0 for the engine's, {@code peers}; {@code
     *     acceptPeers} or more for the engine before session 23 (every dial accepted up to the accept bound)
     */
    public record OverlayShape(boolean dialled, int acceptPeers, Duration grace, int acceptFirst) {

        /** The engine's: dialled, its accept bounds, a 1 s grace. */
        public static final OverlayShape ENGINE = new OverlayShape(true, 0, Duration.ofSeconds(1), 0);

        /** As before session 23: every dial accepted up to the accept bound. */
        public OverlayShape(boolean dialled, int acceptPeers, Duration grace) {
            this(dialled, acceptPeers, grace, Integer.MAX_VALUE);
        }

        /** The accept bound for {@code peers} peers per node. */
        public int accept(int peers) {
            return acceptPeers > 0 ? acceptPeers : peers + Math.max(2, peers / 4);
        }

        /** The bound for a member's first dial, for {@code peers} peers per node (within {@link #accept}). */
        public int first(int peers) {
            return Math.min(accept(peers), acceptFirst > 0 ? acceptFirst : peers);
        }
    }

    /** Broadcast's default piece size. */
    public static final int DEFAULT_PIECE_SIZE = 1 << 20;
    /** Broadcast's default S3 connections per node. */
    public static final int DEFAULT_CONNECTIONS = 16;

    public SimConfig {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(profile, "profile");
        if (down.length == 0 || down.length != up.length) {
            throw new IllegalArgumentException("one down and one up rate per node needed: " + down.length + ", "
                    + up.length);
        }
        if (!(peerEfficiency > 0 && peerEfficiency <= 1)) {
            throw new IllegalArgumentException("peerEfficiency must be in (0, 1], was " + peerEfficiency);
        }
        if (size <= 0 || pieceSize <= 0 || peers < 0 || maxConnections <= 0 || unchokeSlots <= 0
                || maxRequestsPerPeer <= 0) {
            throw new IllegalArgumentException("size, pieceSize, maxConnections, unchokeSlots and maxRequestsPerPeer"
                    + " must be > 0 and peers >= 0");
        }
    }

    /** The defaults of Broadcast and of the fleet: 1 MiB pieces, 16 connections, cooperative choking. */
    public static SimConfig defaults(Strategy strategy, long size, long[] down, long[] up, S3Profile profile,
            long seed, int peers) {
        return new SimConfig(strategy, size, DEFAULT_PIECE_SIZE, down, up, profile, seed, peers, DEFAULT_CONNECTIONS,
                Duration.ofNanos(250_000), Duration.ZERO, Duration.ZERO, Duration.ZERO, 1.0, Duration.ofSeconds(30),
                Duration.ZERO, "cooperative", 19, Duration.ofSeconds(10), 8,
                Duration.ofSeconds(1), Duration.ofHours(1), true, null, OverlayShape.ENGINE);
    }

    public int nodes() {
        return down.length;
    }

    public int pieceCount() {
        return (int) ((size + pieceSize - 1) / pieceSize);
    }

    /** Bytes of {@code piece} (the last may be short). */
    public long pieceBytes(int piece) {
        return Math.min(pieceSize, size - (long) piece * pieceSize);
    }

    /** Whether the overlay is a full mesh. */
    public boolean fullMesh() {
        return peers == 0 || peers >= nodes() - 1;
    }

    public SimConfig withStrategy(Strategy s) {
        return new SimConfig(s, size, pieceSize, down, up, profile, seed, peers, maxConnections, latency,
                afterLastPiece, start, spotCheck, peerEfficiency, requestTimeout, step, chokePolicy, unchokeSlots,
                chokeInterval, maxRequestsPerPeer, requestQueueTime, limit, maxMin, hostCpu, overlayShape);
    }

    public SimConfig withSeed(long s) {
        return new SimConfig(strategy, size, pieceSize, down, up, profile, s, peers, maxConnections, latency,
                afterLastPiece, start, spotCheck, peerEfficiency, requestTimeout, step, chokePolicy, unchokeSlots,
                chokeInterval, maxRequestsPerPeer, requestQueueTime, limit, maxMin, hostCpu, overlayShape);
    }

    public SimConfig withTiming(Duration latency, Duration step) {
        return new SimConfig(strategy, size, pieceSize, down, up, profile, seed, peers, maxConnections, latency,
                afterLastPiece, start, spotCheck, peerEfficiency, requestTimeout, step, chokePolicy, unchokeSlots,
                chokeInterval, maxRequestsPerPeer, requestQueueTime, limit, maxMin, hostCpu, overlayShape);
    }

    /** The calibrated costs the fluid model does not see (docs/scale.md). */
    public SimConfig withOverheads(Duration start, Duration afterLastPiece, Duration spotCheck, double peerEfficiency) {
        return new SimConfig(strategy, size, pieceSize, down, up, profile, seed, peers, maxConnections, latency,
                afterLastPiece, start, spotCheck, peerEfficiency, requestTimeout, step, chokePolicy, unchokeSlots,
                chokeInterval, maxRequestsPerPeer, requestQueueTime, limit, maxMin, hostCpu, overlayShape);
    }

    public SimConfig withSharing(boolean maxMinFair) {
        return new SimConfig(strategy, size, pieceSize, down, up, profile, seed, peers, maxConnections, latency,
                afterLastPiece, start, spotCheck, peerEfficiency, requestTimeout, step, chokePolicy, unchokeSlots,
                chokeInterval, maxRequestsPerPeer, requestQueueTime, limit, maxMinFair, hostCpu, overlayShape);
    }

    public SimConfig withChoking(String policy, int slots, Duration interval) {
        return new SimConfig(strategy, size, pieceSize, down, up, profile, seed, peers, maxConnections, latency,
                afterLastPiece, start, spotCheck, peerEfficiency, requestTimeout, step, policy, slots, interval,
                maxRequestsPerPeer, requestQueueTime, limit, maxMin, hostCpu, overlayShape);
    }

    public SimConfig withPieces(int pieceSize, int maxConnections, int maxRequestsPerPeer, Duration queueTime) {
        return new SimConfig(strategy, size, pieceSize, down, up, profile, seed, peers, maxConnections, latency,
                afterLastPiece, start, spotCheck, peerEfficiency, requestTimeout, step, chokePolicy, unchokeSlots,
                chokeInterval, maxRequestsPerPeer, queueTime, limit, maxMin, hostCpu, overlayShape);
    }

    /** A bounded overlay built as {@code shape} says. */
    public SimConfig withOverlay(OverlayShape shape) {
        return new SimConfig(strategy, size, pieceSize, down, up, profile, seed, peers, maxConnections, latency,
                afterLastPiece, start, spotCheck, peerEfficiency, requestTimeout, step, chokePolicy, unchokeSlots,
                chokeInterval, maxRequestsPerPeer, requestQueueTime, limit, maxMin, hostCpu, shape);
    }

    /** All nodes on one host sharing its CPU ({@code null}: each node has cores of its own). */
    public SimConfig withHostCpu(HostCpu cpu) {
        return new SimConfig(strategy, size, pieceSize, down, up, profile, seed, peers, maxConnections, latency,
                afterLastPiece, start, spotCheck, peerEfficiency, requestTimeout, step, chokePolicy, unchokeSlots,
                chokeInterval, maxRequestsPerPeer, requestQueueTime, limit, maxMin, cpu, overlayShape);
    }
}
