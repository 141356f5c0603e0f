package io.s3broadcast.bench;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.PieceSizing;
import io.s3broadcast.bench.sim.HostCpu;
import io.s3broadcast.bench.sim.SimConfig;
import io.s3broadcast.bench.sim.SimResult;
import io.s3broadcast.bench.sim.Simulation;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.testkit.proxy.S3Profile;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code simulate}: a discrete-event simulation of a broadcast with the engine's policy classes, N up to 100,000. */
@Command(name = "simulate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Predict a broadcast to N nodes (1 to 100,000) on one machine: the engine's own policy objects on a"
                + " virtual clock, links and S3 modelled as fluid flows with the fleet's profiles.",
        description = {
            "%nEvery node runs the engine's planning, work sizing, work list, stealing scheduler, rarest-first request"
                    + " scheduler with its adaptive depth and choke scheduler, driven as the engine's components drive"
                    + " them; messages arrive after --latency; piece bytes and S3 responses are flows sharing each"
                    + " node's download and upload (max-min fair), each GET at the rate it drew from --s3-profile after"
                    + " its first-byte latency. No threads, no sleeps; the same --seed gives the same result.",
            "%nPrints, per strategy, the slowest and mean node against T* (as fleet), S3 bytes / S, peer connections,"
                    + " control messages and bytes per node, the phase split and how long the simulation took; then"
                    + " one JSON line per strategy and trial. docs/scale.md has the model and its validation against"
                    + " the netns fleet.",
        },
        footerHeading = "%nExamples:%n",
        footer = {
            "  java -jar broadcast-bench.jar simulate --nodes 8 --size 64MiB --link 10MB",
            "  java -jar broadcast-bench.jar simulate --nodes 1000 --size 64MiB --link 10MB --peers 16 \\",
            "      --strategies steal,overlap",
        })
final class SimulateCommand implements Callable<Integer> {

    /** Calibrated against the netns fleet (docs/scale.md, "Simulator"). */
    static final String DEFAULT_START = "0.5s";
    static final String DEFAULT_AFTER_LAST_PIECE = "0.1s";
    static final String DEFAULT_SPOT_CHECK = "1s";
    static final String DEFAULT_PEER_EFFICIENCY = "0.95";

    @Spec
    CommandSpec spec;

    @Option(names = "--nodes", defaultValue = "8", description = "Nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--size", paramLabel = "SIZE", converter = ByteSize.Converter.class, defaultValue = "64MiB",
            description = "Size of the object (default: ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of every draw (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--trials", defaultValue = "1", description = "Trials per strategy, seeds seed, seed+1, ..."
            + " (default: ${DEFAULT-VALUE}).")
    int trials;

    @Option(names = "--strategies", split = ",", paramLabel = "NAME", defaultValue = "flat,non-steal,steal,overlap",
            description = "Strategies to simulate (default: ${DEFAULT-VALUE}).")
    List<String> strategyNames;

    @Option(names = "--link", paramLabel = "RATE[/UP]", defaultValue = "10MB",
            description = "Every node's link, as fleet's --link (default: ${DEFAULT-VALUE}).")
    String link;

    @Option(names = "--links", paramLabel = "SPEC",
            description = "Mixed links, as fleet's --links, e.g. 6x10MB,2x2.5MB.")
    String links;

    @Option(names = "--s3-profile", paramLabel = "NAME|SPEC", defaultValue = "paper",
            description = "How S3 answers, as fleet's --s3-profile (default: ${DEFAULT-VALUE}).")
    String s3Profile;

    @Option(names = "--s3-aggregate", paramLabel = "RATE", converter = ByteSize.Converter.class,
            description = "Aggregate S3 cap O; overrides the profile's.")
    Long s3Aggregate;

    @Option(names = "--peers", paramLabel = "K",
            description = "Peers per node at most, a random overlay, as overlayPeers (default: Broadcast's 16: a full mesh"
                    + " up to 17 nodes, as the engine).")
    Integer peers;

    @Option(names = "--overlay", paramLabel = "dialled|random", defaultValue = "dialled",
            description = "How a bounded overlay is built: dialled as the engine's dialler (each node dials half its"
                    + " peers, at most --accept-peers each, nodes still short dial the rest after --connect-grace), or"
                    + " random (at most --peers each, fixed; the simulator's until session 21) (default: ${DEFAULT-VALUE}).")
    String overlayKind;

    @Option(names = "--accept-peers", paramLabel = "N",
            description = "The most peers a node accepts, as acceptPeers (default: the engine's, --peers + max(2,"
                    + " --peers / 4)).")
    Integer acceptPeers;

    @Option(names = "--accept-first", paramLabel = "N",
            description = "The most peers a node has when it accepts a member's first dial; a member it refused that"
                    + " dials again is accepted up to --accept-peers (default: the engine's since session 23, --peers;"
                    + " --accept-first 1000 for the engine before: every dial accepted up to --accept-peers).")
    Integer acceptFirst;

    @Option(names = "--connect-grace", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "1s", description = "How long a node short of peers waits for dials before it dials them"
                    + " itself, from the start (default: ${DEFAULT-VALUE}, the engine's Dialer.SHORT_OF_PEERS_GRACE_NANOS).")
    Duration connectGrace;

    @Option(names = "--latency", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "250us", description = "One-way latency of a control message (default: ${DEFAULT-VALUE}).")
    Duration latency;

    @Option(names = "--start", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = DEFAULT_START, description = "Fixed time from the start signal to a node's first GET (HEAD,"
                    + " registry, connections), calibrated on the netns fleet (default: ${DEFAULT-VALUE}).")
    Duration start;

    @Option(names = "--spot-check", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = DEFAULT_SPOT_CHECK, description = "Fixed time the cooperative strategies add after the"
                    + " last piece (the spot check against S3), calibrated (default: ${DEFAULT-VALUE}).")
    Duration spotCheck;

    @Option(names = "--peer-efficiency", paramLabel = "FRACTION", defaultValue = DEFAULT_PEER_EFFICIENCY,
            description = "Share of a link's capacity that piece bytes between nodes get (TCP, shaping and protocol"
                    + " losses), calibrated; 1 for the ideal fluid (default: ${DEFAULT-VALUE}).")
    double peerEfficiency;

    @Option(names = "--ideal", description = "The fluid model alone: --start 0 --after-last-piece 0 --spot-check 0"
            + " --peer-efficiency 1.")
    boolean ideal;

    @Option(names = "--after-last-piece", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = DEFAULT_AFTER_LAST_PIECE,
            description = "Time a node spends after its last piece (checks, fsync, rename), calibrated on the netns"
                    + " fleet; with --host-cores, that much CPU on one core, shared with the other nodes ending at the"
                    + " same time (default: ${DEFAULT-VALUE}; 0 for the transfer alone).")
    Duration afterLastPiece;

    @Option(names = "--step", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "Recompute the fluid rates at most once per step (default: at every change up to 64 nodes,"
                    + " 2ms above).")
    Duration step;

    @Option(names = "--piece-size", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "Piece size (default: Broadcast's for a cluster expecting --nodes nodes, PieceSizing: about 32"
                    + " pieces per node's share, 256KiB to 1MiB; 1MiB for the flat tree).")
    Long pieceSize;

    @Option(names = "--connections", defaultValue = "16",
            description = "S3 connections per node at most (default: ${DEFAULT-VALUE}, Broadcast's).")
    int connections;

    @Option(names = "--choke-policy", defaultValue = "cooperative",
            description = "cooperative or tit-for-tat (default: ${DEFAULT-VALUE}, Broadcast's).")
    String chokePolicy;

    @Option(names = "--unchoke-slots", paramLabel = "K",
            description = "Regular unchoke slots, as unchokeSlots (default: Broadcast's, 19 cooperative, 4 tit-for-tat).")
    Integer unchokeSlots;

    @Option(names = "--choke-interval", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "10s", description = "Time between choke rounds, as chokeInterval (default: ${DEFAULT-VALUE}).")
    Duration chokeInterval;

    @Option(names = "--max-requests-per-peer", defaultValue = "8",
            description = "Requests in flight to one peer at most, as maxRequestsPerPeer (default: ${DEFAULT-VALUE}).")
    int maxRequestsPerPeer;

    @Option(names = "--request-queue-time", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            defaultValue = "1s", description = "The adaptive request depth's queue time, as requestQueueTime; 0 for a"
                    + " fixed depth (default: ${DEFAULT-VALUE}).")
    Duration requestQueueTime;

    @Option(names = "--sharing", defaultValue = "max-min", paramLabel = "max-min|per-flow",
            description = "How a link is shared among its flows: max-min fair, or equally per flow whatever the"
                    + " flows get elsewhere (default: ${DEFAULT-VALUE}).")
    String sharing;

    @Option(names = "--host-cores", paramLabel = "C",
            description = "All nodes share C cores of one host, as the netns fleet does: cold starts, bytes, read calls"
                    + " and pieces cost CPU as measured there, and flows slow down when the nodes need more than C"
                    + " cores (default: off, each node has cores of its own and CPU is not modelled).")
    Double hostCores;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the JSON lines to FILE.")
    Path jsonFile;

    @Option(names = "--per-node", paramLabel = "FILE", description = "Also write, per node, its peers (at the start and"
            + " the end), its peers' peers, when it held its first, a tenth, nine tenths and all of its pieces, and each"
            + " piece's arrival and sender, to FILE (with several strategies or trials: the last run's).")
    Path perNodeFile;

    /** The piece size given, else the one Broadcast computes for {@code s} with {@code expectNodes} = --nodes. */
    private int pieceSize(Strategy s) {
        return PieceSizing.of(pieceSize == null ? null : Math.toIntExact(pieceSize), size, s, nodes);
    }

    @Override
    public Integer call() throws Exception {
        if (nodes < 1 || nodes > 100_000) {
            throw new ParameterException(spec.commandLine(), "--nodes must be 1 to 100000");
        }
        List<FleetLink> fleetLinks;
        S3Profile profile;
        List<Strategy> strategies = new ArrayList<>();
        try {
            fleetLinks = FleetLink.of(links, link, nodes);
            profile = S3Profile.parse(s3Profile);
            if (s3Aggregate != null) {
                profile = profile.withAggregateCap(s3Aggregate);
            }
            for (String s : strategyNames) {
                strategies.add(Strategy.parse(s.trim()));
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!sharing.equalsIgnoreCase("max-min") && !sharing.equalsIgnoreCase("per-flow")) {
            throw new ParameterException(spec.commandLine(), "--sharing is max-min or per-flow, not '" + sharing + "'");
        }
        if (!overlayKind.equalsIgnoreCase("dialled") && !overlayKind.equalsIgnoreCase("random")) {
            throw new ParameterException(spec.commandLine(), "--overlay is dialled or random, not '" + overlayKind + "'");
        }
        if (hostCores != null && !(hostCores > 0)) {
            throw new ParameterException(spec.commandLine(), "--host-cores must be > 0");
        }
        // As the engine: overlayPeers peers per node, a full mesh for a group of at most overlayPeers + 1.
        int k = peers != null ? peers : ClusterConfig.DEFAULT_OVERLAY_PEERS;
        Duration rateStep = step != null ? step : nodes <= 64 ? Duration.ZERO : Duration.ofMillis(2);
        long[] down = fleetLinks.stream().mapToLong(FleetLink::down).toArray();
        long[] up = fleetLinks.stream().mapToLong(FleetLink::up).toArray();
        SimConfig base = SimConfig.defaults(strategies.get(0), size, down, up, profile, seed, k)
                .withTiming(latency, rateStep)
                .withSharing(!sharing.equalsIgnoreCase("per-flow"))
                .withOverheads(ideal ? Duration.ZERO : start, ideal ? Duration.ZERO : afterLastPiece,
                        ideal ? Duration.ZERO : spotCheck, ideal ? 1.0 : peerEfficiency)
                .withChoking(chokePolicy, unchokeSlots != null ? unchokeSlots
                        : chokePolicy.equalsIgnoreCase("tit-for-tat") ? 4 : 19, chokeInterval)
                .withPieces(pieceSize(strategies.get(0)), connections, maxRequestsPerPeer, requestQueueTime)
                .withHostCpu(hostCores == null ? null : HostCpu.measured(hostCores))
                .withOverlay(new SimConfig.OverlayShape(overlayKind.equalsIgnoreCase("dialled"),
                        acceptPeers == null ? 0 : acceptPeers, connectGrace, acceptFirst == null ? 0 : acceptFirst));
        FluidBound tStar = FluidBound.of(size, profile.aggregateCap(), fleetLinks);
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "%nsimulate: %d nodes, %s in %s pieces, %s, S3 %s%n", nodes, ByteSize.format(size),
                ByteSize.format(pieceSize(strategies.get(0))),
                base.fullMesh() ? "full mesh" : base.overlayShape().dialled()
                        ? "overlay of " + k + " peers dialled (half each, at most " + base.overlayShape().accept(k)
                                + ", the rest after " + connectGrace.toMillis() / 1e3 + " s)"
                        : "at most " + k + " peers per node", profile.describe());
        out.printf(Locale.ROOT, "T* = %.3f s (binds: %s); rates recomputed %s%n", tStar.seconds(), tStar.binds(),
                rateStep.isZero() ? "at every change" : "every " + rateStep.toNanos() / 1e6 + " ms");
        out.printf(Locale.ROOT, "calibrated costs: start %.3f s, after the last piece %.3f s (+ spot check %.3f s),"
                + " peer efficiency %.2f%n", base.start().toNanos() / 1e9, base.afterLastPiece().toNanos() / 1e9,
                base.spotCheck().toNanos() / 1e9, base.peerEfficiency());
        if (base.hostCpu() != null) {
            HostCpu c = base.hostCpu();
            out.printf(Locale.ROOT, "host CPU: %s cores shared by every node; start %.2f CPU-s, %.1f ms per MiB taken in or"
                    + " passed on, %.0f us per read call (%.0f + %.2f per MB/s of the link per link-second), %.2f ms per piece + %.2f"
                    + " ms per peer%n",
                    java.math.BigDecimal.valueOf(c.cores()).stripTrailingZeros().toPlainString(), c.startSeconds(), c.byteSeconds() * (1 << 20) * 1e3, c.readSeconds() * 1e6,
                    c.readsPerLinkSecond(), c.readsPerLinkSecondPerRate() * 1e6, c.pieceSeconds() * 1e3,
                    c.piecePeerSeconds() * 1e3);
        }
        out.printf(Locale.ROOT, "%n%-10s %5s %9s %7s %9s %7s %6s %6s %8s %9s %9s %8s %8s %6s %9s %7s%n", "strategy",
                "trial", "slowest s", "/T*", "mean s", "/T*", "S3/S", "conns", "msgs/nd", "ctrlB/nd", "phase1 s",
                "phase2 s", "stolen", "done", "events", "wall s");
        List<String> lines = new ArrayList<>();
        boolean allDone = true;
        for (Strategy s : strategies) {
            for (int t = 0; t < trials; t++) {
                SimResult r = new Simulation(base.withStrategy(s).withSeed(seed + t)
                        .withPieces(pieceSize(s), connections, maxRequestsPerPeer, requestQueueTime))
                        .perNode(perNodeFile).run();
                allDone &= r.completed();
                out.printf(Locale.ROOT,
                        "%-10s %5d %9.2f %7.3f %9.2f %7.3f %6.3f %6d %8.0f %9.0f %9.2f %8.2f %8d %6s %9d %7.1f%n",
                        Converters.name(s), t + 1, r.slowest(), r.slowest() / tStar.seconds(), r.mean(),
                        r.mean() / tStar.seconds(), r.s3BytesOverS(), r.connectionsMax(), r.messagesPerNode(),
                        r.controlBytesPerNode(), r.phase1EndMean(), r.phase2Mean(), r.piecesStolen(),
                        r.completed() ? "yes" : "NO", r.events(), r.wallSeconds());
                SimResult.Idle idle = r.idle();
                out.printf(Locale.ROOT, "%-16s download idle s: mean %.2f (to 1/10 of the pieces %.2f, to 9/10 %.2f,"
                        + " to the last %.2f), most %.2f; slowest node %.2f + %.2f + %.2f; first piece at %.2f s;"
                        + " uploads busy %.0f%%; duplicates %.3f S per node%n", "", idle.totalMean(), idle.headMean(), idle.middleMean(),
                        idle.tailMean(), idle.totalMax(), idle.slowestHead(), idle.slowestMiddle(), idle.slowestTail(),
                        idle.firstPieceMean(), 100 * idle.uploadBusy(), idle.duplicatesOverS());
                if (r.cpu() != null) {
                    out.printf(Locale.ROOT, "%-16s host CPU: starts end at %.2f s; %.2f CPU-s per node (most %.2f); the"
                            + " host %.0f%% busy to the last piece%n", "", r.cpu().startSeconds(), r.cpu().perNodeMean(),
                            r.cpu().perNodeMax(), 100 * r.cpu().hostBusy());
                }
                out.flush();
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("command", "simulate");
                line.put("strategy", Converters.name(s));
                line.put("trial", t + 1);
                line.put("seed", seed + t);
                line.put("nodes", nodes);
                line.put("size", size);
                line.put("links", fleetLinks.stream().map(FleetLink::describe).distinct().toList());
                line.put("s3Profile", profile.describe());
                line.put("peers", k);
                if (!base.fullMesh()) {
                    line.put("overlay", base.overlayShape().dialled() ? "dialled" : "random");
                    line.put("acceptPeers", base.overlayShape().accept(k));
                    line.put("connectGraceSeconds", connectGrace.toNanos() / 1e9);
                }
                line.put("sharing", sharing);
                line.put("startSeconds", base.start().toNanos() / 1e9);
                line.put("afterLastPieceSeconds", base.afterLastPiece().toNanos() / 1e9);
                line.put("spotCheckSeconds", base.spotCheck().toNanos() / 1e9);
                line.put("peerEfficiency", base.peerEfficiency());
                line.put("stepSeconds", rateStep.toNanos() / 1e9);
                if (hostCores != null) {
                    line.put("hostCores", hostCores);
                }
                line.put("tStar", tStar);
                line.put("slowestOverTStar", tStar.ratio(r.slowest()));
                line.put("meanOverTStar", tStar.ratio(r.mean()));
                line.put("result", nodes <= 64 ? r : withoutCompletions(r));
                lines.add(Json.line(line));
            }
        }
        out.println();
        lines.forEach(out::println);
        out.flush();
        if (jsonFile != null) {
            Files.write(jsonFile, lines);
        }
        return allDone ? 0 : 1;
    }

    private static SimResult withoutCompletions(SimResult r) {
        return new SimResult(r.strategy(), r.nodes(), r.completed(), r.slowest(), r.mean(), r.fastest(),
                r.phase1EndMean(), r.phase2Mean(), r.s3BytesOverS(), r.s3GetsPerNode(), r.s3Connections(),
                r.rangeBytes(), r.connectionsMax(), r.connectionsMean(), r.overlayConnected(), r.messagesPerNode(),
                r.messagesPerNodeMax(), r.controlBytesPerNode(), r.controlBytesPerNodeMax(), r.piecesStolen(),
                r.events(), r.rateRecomputations(), r.peakFlows(), r.wallSeconds(), r.idle(), r.cpu(), List.of());
    }
}
