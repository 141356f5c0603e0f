package io.s3broadcast.bench.sim;

import io.s3broadcast.spi.cluster.ChokeScheduler;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.PieceSelector;
import io.s3broadcast.spi.cluster.RequestScheduler;
import io.s3broadcast.spi.cluster.RequestSchedulerBuilder;
import io.s3broadcast.spi.cluster.StealingScheduler;
import io.s3broadcast.spi.cluster.WorkList;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.testkit.proxy.S3Profile;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One simulated node: the engine's policy objects ({@link ClusterPlan}, {@link WorkSizing}, {@link WorkList},
 * {@link StealingScheduler}, {@link RequestScheduler} with rarest-first selection and the adaptive depth,
 * {@link ChokeScheduler}) driven the way the engine's components drive them (broadcast-p2p {@code ShareFetcher},
 * {@code WorkStealing}, {@code PieceStored}, {@code PieceExchange}, {@code PieceServer}, {@code ChokeDriver}), with
 * messages delivered after the control latency and piece bytes carried by the {@link FluidNetwork}. Everything runs
 * on the {@link EventQueue}'s thread and clock.
 *
 * <p>Not modelled: failures and what handles them (request and give-work timeouts, the orphan rule, bans, linger's
 * end), digests and disputes (a {@code DIGESTS} message is counted, nothing checked), the spot check's S3 reads
 * (its time is in the fixed after-last-piece time), connection set-up (every overlay link is up at t = 0).
 */
final class SimNode {

    /** Frame overhead of a message: length {@code uint32} and type {@code u8} (docs/protocol.md). */
    static final int FRAME = 5;

    /** One overlay link as this node sees it (the engine's {@code Peer} flags). */
    final class Link {
        final SimNode node;
        FluidNetwork.Flow out;
        boolean amInterested;
        boolean peerInterested;
        boolean peerChoking = true;
        /** Requests outstanding to this peer and when they were sent (PieceExchange's askedAt). */
        final Map<Integer, Long> askedAt = new HashMap<>();
        int lastWorks;
        int serving;

        Link(SimNode node) {
            this.node = node;
        }
    }

    final int index;
    final String id;
    private final Simulation sim;
    private final SimConfig config;
    private final EventQueue events;
    private final FluidNetwork net;
    private final ClusterPlan plan;
    private final WorkList workList;
    private final StealingScheduler stealing;
    private final RequestScheduler requests;
    private final ChokeScheduler choke;
    private final Random s3Random;
    final Map<String, Link> links = new LinkedHashMap<>();
    private final Map<String, Set<Integer>> stealsSent = new HashMap<>();
    private final BitSet inStolenWorks = new BitSet();

    private WorkSizing.Sizing sizing;
    private boolean begun;
    private boolean fetching;
    private int lanes;
    private boolean stealOutstanding;
    private boolean phase2Started;
    private int advertised = -1;

    long phase1End = -1;
    long lastPiece = -1;
    /** When this node held its first piece, a tenth of the pieces and nine tenths (-1 until then). */
    long firstPiece = -1;
    long tenth = -1;
    long nineTenths = -1;
    /** Bytes its download had carried at those moments and at the last piece. */
    double downAtTenth;
    double downAtNineTenths;
    double downAtLast;
    /** Piece bytes that arrived from peers after the piece was already held (endgame duplicates started too soon to cancel). */
    long duplicateBytes;
    long messages;
    long controlBytes;
    long s3Bytes;
    long s3Gets;
    /** Piece bytes this node received from peers (duplicates included) and sent to them. */
    long peerBytesIn;
    long peerBytesOut;
    /** With a shared host ({@link HostCpu}): CPU-seconds per byte this node takes in and passes on; else 0. */
    private double cpuIn;
    private double cpuOut;
    int piecesStolen;
    /** When each piece arrived (virtual nanoseconds) and from which node's index (-1: S3), for {@code --per-node}. */
    final long[] arrivedAt;
    final int[] arrivedFrom;

    SimNode(Simulation sim, int index, String id) {
        this.sim = sim;
        this.index = index;
        this.id = id;
        this.config = sim.config();
        this.events = sim.events();
        this.net = sim.network();
        this.plan = ClusterPlan.of(config.strategy());
        int pieceCount = config.pieceCount();
        this.workList = new WorkList(pieceCount, List.of());
        this.stealing = plan.scheduler(new Random(Simulation.mix(config.seed(), index, 1)));
        RequestSchedulerBuilder rb = RequestScheduler.builder(pieceCount)
                .selector(PieceSelector.randomizedRarest(new Random(Simulation.mix(config.seed(), index, 2))))
                .source(workList)
                .maxRequestsPerPeer(config.maxRequestsPerPeer())
                .ticker(events.ticker());
        rb.depth(RequestSchedulerBuilder.depthFor(config.maxRequestsPerPeer(), config.requestQueueTime()));
        this.requests = rb.build();
        // As ChokeSchedulerBuilder.configure(ClusterConfig) sets it.
        this.choke = ChokeScheduler.builder().ticker(events.ticker()).policy(config.chokePolicy())
                .slots(config.unchokeSlots()).interval(config.chokeInterval()).minFlipInterval(config.chokeInterval())
                .rateWindow(config.chokeInterval().plus(config.chokeInterval()))
                .random(new Random(Simulation.mix(config.seed(), index, 3)))
                .piecesHeld(() -> pieceCount - requests.missing()).build();
        this.s3Random = new Random(Simulation.mix(config.seed(), index, 4));
        this.arrivedAt = new long[pieceCount];
        this.arrivedFrom = new int[pieceCount];
    }

    /** This node's CPU costs on a shared host: per byte it takes in (S3 or peers) and per byte it passes on. */
    void cpuCosts(double perByteIn, double perByteOut) {
        this.cpuIn = perByteIn;
        this.cpuOut = perByteOut;
    }

    /** CPU-seconds the bytes this node took in and passed on cost so far (0 without a shared host). */
    double dataCpuSeconds() {
        return (s3Bytes + peerBytesIn) * cpuIn + peerBytesOut * cpuOut;
    }

    void connect(SimNode other, int otherShareWorks) {
        Link l = new Link(other);
        l.lastWorks = otherShareWorks;
        links.put(other.id, l);
        // The flow carries wire bytes (1 / peerEfficiency of the piece's); its CPU is per piece byte, sender's and
        // receiver's.
        double cpu = (cpuOut + other.cpuIn) * config.peerEfficiency();
        l.out = net.openPeer(index, other.index, cpu, new FluidNetwork.Listener() {
            @Override
            public void delivered(FluidNetwork.Flow flow, int piece, long wireBytes) {
                long bytes = config.pieceBytes(piece);
                l.serving--;
                peerBytesOut += bytes;
                choke.uploaded(other.id, bytes);
                other.onPiece(id, piece, bytes);
            }

            @Override
            public void drained(FluidNetwork.Flow flow) {
            }
        });
        choke.peerConnected(other.id);
        stealing.worksLeft(other.id, otherShareWorks);
    }

    /**
     * A connection made mid-run (the dialler's refill): as {@link #connect}, then the peer's {@code BITFIELD} and
     * works left, interest and the choke as on a new peer.
     */
    void connectLate(SimNode other) {
        connect(other, Math.max(0, other.advertised));
        Link l = links.get(other.id);
        for (int p = 0; p < config.pieceCount(); p++) {
            if (other.requests.hasPiece(p)) {
                requests.peerHave(other.id, p);
            }
        }
        updateInterest(l);
        rechokeIfSlotsFree();
        pump(l);
    }

    /** Phase 1 starts: as {@code ShareFetcher.begin}. */
    void begin(List<PieceRun> share, WorkSizing.Sizing sizing) {
        this.sizing = sizing;
        workList.append(share);
        begun = true;
        advertiseWorks();
        pump();
    }

    /** A choke round: as {@code ChokeDriver}'s timer. */
    void chokeRound() {
        apply(choke.tick());
    }

    // ------------------------------------------------------------------ messages

    private void send(Link l, int body, Consumer<SimNode> onArrive) {
        messages++;
        controlBytes += FRAME + body;
        SimNode to = l.node;
        events.after(config.latency().toNanos(), () -> onArrive.accept(to));
    }

    // ------------------------------------------------------------------ phase 1 (ShareFetcher, WorkStealing)

    void pump() {
        if (!begun) {
            return;
        }
        StealingScheduler.Step step = stealing.next(workList.remaining());
        switch (step.action()) {
            case FETCH -> {
                stealOutstanding = false;
                startFetch();
            }
            case STEAL -> steal(step.victim(), step.requestId());
            case WAIT -> stealOutstanding = true;
            case DONE -> {
                stealOutstanding = false;
                if (!fetching && workList.isEmpty() && phase1End < 0) {
                    phase1End = events.now();
                }
            }
        }
        checkPhase2Start();
    }

    private void startFetch() {
        if (fetching) {
            return;
        }
        fetching = true;
        lanes = sizing.connections();
        for (int i = 0; i < sizing.connections(); i++) {
            lane();
        }
    }

    /** One S3 connection: polls a run, GETs it (first byte after the drawn latency, at the drawn rate). */
    private void lane() {
        PieceRun run = workList.poll(sizing.rangePieces());
        if (run == null) {
            if (--lanes == 0) {
                // The fetch's completion runs on the loop (ShareFetcher.startFetch).
                events.after(0, () -> {
                    fetching = false;
                    pump();
                });
            }
            return;
        }
        s3Gets++;
        S3Profile profile = config.profile();
        long latency = profile.firstByte().draw(s3Random);
        double rate = profile.rates() == null ? 0 : profile.rates().draw(s3Random);
        if (profile.perConnectionCap() > 0) {
            rate = rate == 0 ? profile.perConnectionCap() : Math.min(rate, profile.perConnectionCap());
        }
        double ownCap = rate;
        events.after(latency, () -> {
            FluidNetwork.Flow flow = net.openS3(index, ownCap, cpuIn, new FluidNetwork.Listener() {
                @Override
                public void delivered(FluidNetwork.Flow f, int piece, long bytes) {
                    s3Bytes += bytes;
                    stored(piece, null, bytes);
                }

                @Override
                public void drained(FluidNetwork.Flow f) {
                    net.close(f);
                    lane();
                }
            });
            for (int p = run.first(); p < run.end(); p++) {
                net.enqueue(flow, p, config.pieceBytes(p));
            }
        });
    }

    private void steal(String victim, int requestId) {
        Link l = links.get(victim);
        if (l == null) {
            stealing.answered(victim, requestId, 0);
            stealOutstanding = false;
            return;
        }
        stealOutstanding = true;
        stealsSent.computeIfAbsent(victim, k -> new HashSet<>()).add(requestId);
        send(l, 4, v -> v.onGiveWorkRequest(id, requestId));
    }

    private void onGiveWorkRequest(String from, int requestId) {
        List<PieceRun> given = plan.givesWork() ? workList.giveAway() : List.of();
        for (PieceRun r : given) {
            inStolenWorks.clear(r.first(), r.end());
        }
        Link l = links.get(from);
        send(l, 8 + 8 * given.size(), t -> t.onGiveWorkResponse(id, requestId, given));
        advertiseWorks();
    }

    private void onGiveWorkResponse(String from, int requestId, List<PieceRun> works) {
        Set<Integer> ids = stealsSent.get(from);
        if (ids == null || !ids.remove(requestId)) {
            return;
        }
        workList.append(works);
        for (PieceRun r : works) {
            inStolenWorks.set(r.first(), r.end());
            for (int i = r.first(); i < r.end(); i++) {
                if (requests.hasPiece(i)) {
                    workList.pieceStored(i);
                }
            }
        }
        if (stealing.answered(from, requestId, works.size())) {
            stealOutstanding = false;
        }
        advertiseWorks();
        pump();
    }

    private void advertiseWorks() {
        if (!begun) {
            return;
        }
        int n = workList.remaining().works();
        if (n == advertised) {
            return;
        }
        advertised = n;
        for (Link l : links.values()) {
            send(l, 4, p -> p.onWorksLeft(id, n));
        }
    }

    private void onWorksLeft(String from, int works) {
        Link l = links.get(from);
        l.lastWorks = works;
        stealing.worksLeft(from, works);
        pump();
    }

    private boolean overEverywhere() {
        if (!begun || fetching || stealOutstanding || !workList.isEmpty()) {
            return false;
        }
        for (Link l : links.values()) {
            if (l.lastWorks != 0) {
                return false;
            }
        }
        return true;
    }

    private boolean phase2Allowed() {
        return plan.phase2Allowed(phase2Started);
    }

    private void checkPhase2Start() {
        if (!phase2Started && overEverywhere()) {
            phase2Started = true;
            pumpAll();
        }
    }

    // ------------------------------------------------------------------ stored (PieceStored)

    private void stored(int piece, String from, long bytes) {
        boolean fromS3 = from == null;
        if (requests.hasPiece(piece)) {
            // An S3 read of a piece an endgame duplicate from a peer brought first: nothing new.
            duplicateBytes += bytes;
            workList.pieceStored(piece);
            return;
        }
        if (fromS3 && inStolenWorks.get(piece)) {
            piecesStolen++;
        }
        workList.pieceStored(piece);
        arrivedAt[piece] = events.now();
        arrivedFrom[piece] = fromS3 ? -1 : links.get(from).node.index;
        for (RequestScheduler.PeerRequest cancel : requests.pieceStored(piece, from)) {
            Link l = links.get(cancel.peer());
            if (l != null) {
                l.askedAt.remove(piece);
                send(l, 4, p -> p.onCancel(id, piece));
            }
        }
        for (Link l : links.values()) {
            if (fromS3) {
                send(l, 72, p -> { });
            }
            send(l, 4, p -> p.onHave(id, piece));
            if (l.amInterested && !requests.isInteresting(l.node.id)) {
                l.amInterested = false;
                send(l, 0, p -> p.onInterested(id, false));
            }
        }
        advertiseWorks();
        markProgress();
        // As the engine's HAVE batch: one more piece held may free an unchoke slot (ChokeSchedulerBuilder.piecesHeld).
        rechokeIfSlotsFree();
        if (requests.isComplete()) {
            lastPiece = events.now();
            choke.seeding(true);
            sim.nodeComplete(this);
            return;
        }
        if (fromS3) {
            pump();
            if (phase2Allowed() || requests.isEndgame()) {
                pumpAll();
            }
        }
    }

    /** This node's upload capacity, bytes per second (0: unlimited). */
    long up() {
        return config.up()[index];
    }

    /** Notes when this node reached its first piece, a tenth and nine tenths of them, and its last (for idle time). */
    private void markProgress() {
        int count = config.pieceCount();
        int held = count - requests.missing();
        long now = events.now();
        if (firstPiece < 0) {
            firstPiece = now;
        }
        if (tenth < 0 && held * 10L >= count) {
            tenth = now;
            downAtTenth = net.downloaded(index);
        }
        if (nineTenths < 0 && held * 10L >= 9L * count) {
            nineTenths = now;
            downAtNineTenths = net.downloaded(index);
        }
        if (held == count) {
            downAtLast = net.downloaded(index);
        }
    }

    // ------------------------------------------------------------------ phase 2 (PieceExchange, PieceServer)

    private boolean mayRequest() {
        return !requests.isComplete() && phase2Allowed();
    }

    private void pump(Link l) {
        if (l.peerChoking || !mayRequest()) {
            return;
        }
        int[] next = requests.nextRequests(l.node.id);
        if (next.length == 0) {
            return;
        }
        if (!l.amInterested) {
            l.amInterested = true;
            send(l, 0, p -> p.onInterested(id, true));
        }
        long now = events.now();
        for (int piece : next) {
            l.askedAt.put(piece, now);
            send(l, 4, p -> p.onRequest(id, piece));
            events.after(config.requestTimeout().toNanos(), () -> expire(l, piece, now));
        }
    }

    private void pumpAll() {
        for (Link l : links.values()) {
            pump(l);
        }
    }

    private void pumpAllExcept(String peer) {
        for (Link l : links.values()) {
            if (!l.node.id.equals(peer)) {
                pump(l);
            }
        }
    }

    private void updateInterest(Link l) {
        boolean want = !requests.isComplete() && requests.isInteresting(l.node.id);
        if (want != l.amInterested) {
            l.amInterested = want;
            send(l, 0, p -> p.onInterested(id, want));
        }
    }

    private void onHave(String from, int piece) {
        Link l = links.get(from);
        requests.peerHave(from, piece);
        if (!l.amInterested && !requests.hasPiece(piece)) {
            updateInterest(l);
        }
        pump(l);
    }

    private void onChoke(String from, boolean choking) {
        Link l = links.get(from);
        l.peerChoking = choking;
        if (!choking) {
            pump(l);
        }
    }

    private void onRequest(String from, int piece) {
        Link l = links.get(from);
        if (choke.isChoking(from) || !requests.hasPiece(piece) || l.serving >= config.maxRequestsPerPeer()) {
            send(l, 4, p -> p.onReject(id, piece));
            return;
        }
        l.serving++;
        controlBytes += FRAME + 8;
        // Piece bytes cost 1 / peerEfficiency of their size on the links (the losses the model does not see).
        net.enqueue(l.out, piece, (long) Math.ceil(config.pieceBytes(piece) / config.peerEfficiency()));
    }

    /** PieceExchange.expireRequests for one request: unanswered for the request timeout, it is asked elsewhere. */
    private void expire(Link l, int piece, long askedAt) {
        Long at = l.askedAt.get(piece);
        if (at == null || at != askedAt) {
            return;
        }
        l.askedAt.remove(piece);
        requests.requestFailed(l.node.id, piece);
        pumpAll();
    }

    private void onReject(String from, int piece) {
        links.get(from).askedAt.remove(piece);
        if (requests.requestFailed(from, piece)) {
            pumpAllExcept(from);
        }
    }

    private void onCancel(String from, int piece) {
        Link l = links.get(from);
        if (net.cancel(l.out, piece)) {
            l.serving--;
        }
    }

    private void onPiece(String from, int piece, long bytes) {
        Link l = links.get(from);
        l.askedAt.remove(piece);
        peerBytesIn += bytes;
        choke.downloaded(from, bytes);
        if (requests.hasPiece(piece)) {
            duplicateBytes += bytes;
            requests.requestFailed(from, piece);
            pump(l);
            return;
        }
        stored(piece, from, bytes);
        pump(l);
    }

    // ------------------------------------------------------------------ choking (ChokeDriver)

    private void onInterested(String from, boolean interested) {
        Link l = links.get(from);
        l.peerInterested = interested;
        choke.interested(from, interested);
        rechokeIfSlotsFree();
    }

    private void rechokeIfSlotsFree() {
        int served = 0;
        boolean waiting = false;
        for (Link l : links.values()) {
            if (!l.peerInterested) {
                continue;
            }
            if (choke.isChoking(l.node.id)) {
                waiting = true;
            } else {
                served++;
            }
        }
        if (waiting && served < config.unchokeSlots() + 1) {
            apply(choke.rechoke());
        }
    }

    private void apply(ChokeScheduler.Decisions d) {
        for (String peer : d.unchoke()) {
            Link l = links.get(peer);
            if (l != null) {
                send(l, 0, p -> p.onChoke(id, false));
            }
        }
        for (String peer : d.choke()) {
            Link l = links.get(peer);
            if (l != null) {
                send(l, 0, p -> p.onChoke(id, true));
            }
        }
    }
}
