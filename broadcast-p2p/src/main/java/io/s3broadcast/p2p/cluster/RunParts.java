package io.s3broadcast.p2p.cluster;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.s3broadcast.spi.cluster.ChokeScheduler;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.HaveBatcher;
import io.s3broadcast.spi.cluster.PieceSelector;
import io.s3broadcast.spi.cluster.RequestScheduler;
import io.s3broadcast.spi.cluster.RequestSchedulerBuilder;
import io.s3broadcast.spi.cluster.SourcePieces;
import io.s3broadcast.spi.cluster.WorkList;
import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterTask;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceListener;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The components of one {@link NodeRun}, made and wired together: each gets its collaborators, the run's loop or
 * ticker, and what it asks of the run (the run's package-private methods) through its constructor. Only the
 * wiring is here; each rule lives in its component.
 */
final class RunParts implements Housekeeping.Checks {

    private static final Logger LOG = LoggerFactory.getLogger(RunParts.class);

    final RegistrySession registry;
    final Membership membership;
    final BanList banned;
    final RestingPeers resting;
    final Disputes disputes;
    final DigestExchange digests;
    final DigestRelay relay;
    final PieceReceiver receiver;
    final ArrivalChecks arrivals;
    final Repairs repairs;
    final ClusterPlan plan;
    final ShareFetcher phase1;
    final ShareHandBack handBack;
    final RequestScheduler requests;
    final ChokeScheduler choke;
    final PieceExchange exchange;
    final ChokeDriver chokeDriver;
    final Linger linger;
    final PeerChannels channels;
    final PieceServer server;
    final Dialer dialer;
    final AcceptBound acceptBound;
    private final Stranded stranded;
    final OrphanRule orphans;
    final DroppedPeers dropped;
    final PeerClaims claims;
    final PeerGreeting greeting;
    final PieceStored stored;
    final Connections connections;
    final UploadPacer pacer;
    final CatchUp catchUp;
    private final ExchangeStillReport stillReport;
    private final Map<String, Peer> peers;
    private final int pieceCount;

    RunParts(NodeRun run, PeerCluster cluster, ClusterTask task, EventLoop loop, Map<String, Peer> peers,
            OutcomeTally tally) {
        ClusterConfig config = cluster.config();
        this.peers = peers;
        PieceStore store = task.store();
        int pieceCount = store.layout().pieceCount();
        this.pieceCount = pieceCount;
        PieceServing serving = cluster.serving();
        // First-hand digests: this node's own S3 reads and what peers vouched for.
        Vouches vouches = new Vouches(pieceCount);
        store.keepDigests();
        registry = new RegistrySession(cluster.timer());
        membership = new Membership(config.ticker(), Membership.CONNECT_GRACE_NANOS, config.overlayPeers(), peers::size);
        banned = new BanList(BanList.THRESHOLD, run::self, (id, reason, why) -> {
            cluster.bans().banned(run.self(), id);
            Peer p = peers.get(id);
            if (p != null) {
                p.link.goodbye(reason, why);
            }
        });
        resting = new RestingPeers(config.ticker(), config.limits().requestTimeout().toNanos(), run::self);
        disputes = new Disputes(run::self, run.group().toString(), store, vouches, this::expected, banned,
                pieces -> SourceCheck.fetch(task, pieces), run::execute, cluster.disk(), RunCallbacks.disputes(run, this, task));
        digests = new DigestExchange(store, vouches, membership::trusted, serving,
                (first, d) -> run.pipeline().signDigests(first, d), (d, peer) -> run.pipeline().verify(d, peer), disputes);
        relay = new DigestRelay(peers, membership::bounded);
        receiver = new PieceReceiver(run::self, store, this::expected, vouches, membership::trusted, banned,
                disputes, cluster.disk(), run::execute, RunCallbacks.receiver(run, this, task, tally, peers));
        Repairs.Sampler sampler = samples -> SpotCheck.run(samples, task.source(), task.object(), store, cluster.disk(),
                task.listener());
        plan = ClusterPlan.of(task.strategy());
        SourceListener s3Listener = RunCallbacks.s3Listener(run, this, task, this::s3Progress);
        phase1 = new ShareFetcher(config.nodeId(), plan, pieceCount, new Random(seed(config.nodeId(), 1)),
                RunCallbacks.phaseOne(run, this, peers), (queue, reads) -> task.source().fetch(task.object(), queue, store, s3Listener,
                reads), run::execute, loop, config.ticker());
        handBack = new ShareHandBack(run::self, pieceCount, phase1);
        arrivals = new ArrivalChecks(run::self, store.layout(), vouches, disputes, () -> membership.members().size(),
                () -> piecesToCome(store, phase1), new SecureRandom(), sampler, run::execute, task.spotCheckBudget());
        repairs = new Repairs(run::self, store.layout(), vouches, disputes, () -> membership.members().size(), SecureRandom::new, sampler,
                arrivals, run::execute);
        requests = RequestScheduler.builder(pieceCount)
                .have(store.bitfield())
                .selector(PieceSelector.randomizedRarest(new Random(seed(config.nodeId(), 2))))
                .frontWindow(RequestSchedulerBuilder.frontWindowFor(task.object(), pieceCount))
                .source(new SourcePieces() {
                    // A piece nobody vouched for (or peers dispute) is not requested: it could not be checked.
                    @Override
                    public boolean isPending(int piece) {
                        return phase1.workList().isPending(piece) || expected(piece) == null;
                    }

                    @Override
                    public boolean isInFlight(int piece) {
                        return phase1.workList().isInFlight(piece);
                    }
                })
                .configure(config)
                .build();
        choke = ChokeScheduler.builder()
                .configure(config)
                .random(new Random(seed(config.nodeId(), 3)))
                .piecesHeld(store::presentCount)
                .build();
        BooleanSupplier mayRequest = () -> !run.closing() && !run.leaving() && !run.isComplete()
                && phase1.phase2Allowed();
        IntPredicate vouched = piece -> expected(piece) != null;
        exchange = new PieceExchange(peers, requests, config.ticker(), config.limits().requestTimeout(), mayRequest,
                () -> !run.isComplete() && !run.leaving(), vouched, banned::misbehaved, resting::drop, run::self);
        stillReport = new ExchangeStillReport(peers, mayRequest, store::presentCount, store::bitfield, vouched,
                piece -> phase1.workList().isPending(piece), config.ticker(), run::self);
        chokeDriver = new ChokeDriver(choke, peers, loop, config.unchokeSlots());
        linger = new Linger(peers, loop, config.linger(), membership::anyPending, run::finish);
        channels = new PeerChannels(loop, cluster.tls(), run::pipeline, cluster.peerChannelHandler());
        pacer = new UploadPacer(config.ticker());
        catchUp = new CatchUp(pacer, config.ticker(), config.catchUpShare(), pieceCount, store.layout().pieceSize(),
                config.nodeId());
        server = new PieceServer(store, serving, choke, banned::contains, disputes.quarantine(), tally.exchangedWith(),
                config.maxRequestsPerPeer(), run::closing, config.ticker(), run::execute, pacer);
        dialer = new Dialer(run::self, membership, peers, id -> banned.contains(id) || resting.isResting(id), loop,
                (node, failed) -> channels.dial(node, handler(node))
                        .addListener((ChannelFutureListener) f -> {
                            if (!f.isSuccess()) {
                                run.execute(failed);
                            }
                        }),
                () -> run.closing() || run.leaving(), run::isComplete, () -> run.isComplete() && linger.nobodyWaits(),
                new Dialer.Shape(config.overlayPeers(), config.acceptPeers(), new Random(seed(config.nodeId(), 4)),
                        config.ticker(), Dialer.SHORT_OF_PEERS_GRACE_NANOS));
        stranded = new Stranded(peers, membership::bounded, () -> !run.isComplete() && phase1.overEverywhere(),
                requests::isInteresting, config.ticker(), run::self);
        acceptBound = new AcceptBound(config.overlayPeers(), config.acceptPeers(), membership::bounded, config.ticker());
        dropped = new DroppedPeers(config.ticker(), resting.restNanos(2), membership::isMember);
        orphans = new OrphanRule(run::self, pieceCount, peers, membership, config.ticker(), phase1::overEverywhere,
                store::bitfield, piece -> phase1.workList().isPending(piece) || disputes.isChecking(piece)
                        || (requests.availability(piece) > 0 && expected(piece) != null) || dropped.holds(piece),
                () -> phase1.sizing().workPieces(), phase1::take);
        claims = new PeerClaims(pieceCount, exchange, phase1, orphans, banned::misbehaved, () -> {
            phase1.checkPhase2Start();
            run.checkLingerEnd();
            dialer.fill();
        });
        stored = new PieceStored(peers, requests, phase1, exchange, run::closing, digests::ownRead, digests::announce,
                disputes::idle, run::complete,
                new HaveBatcher(loop, Duration.ZERO, pieces -> {
                    PieceStored.announce(peers, pieces);
                    // Pieces held bound the unchoked peers (ChokeSchedulerBuilder.piecesHeld): more may be
                    // unchoked now.
                    chokeDriver.rechokeIfSlotsFree();
                }));
        greeting = new PeerGreeting(stored::announced, phase1, digests::ownDigests, run::isComplete);
        connections = new Connections(run, this, cluster, task, peers);
    }

    @Override
    public void expireMembers() {
        membership.expirePending();
    }

    @Override
    public void fillOverlay() {
        dialer.fill();
        if (stranded.check()) {
            dialer.reachOut();
        }
    }

    @Override
    public void checkPhase2Start() {
        phase1.checkPhase2Start();
    }

    @Override
    public void expireRequests() {
        exchange.expireRequests();
        stillReport.check();
    }

    @Override
    public void checkOrphans() {
        orphans.check();
    }

    @Override
    public void paceUploads() {
        int[] held = new int[peers.size()];
        int i = 0;
        for (Peer p : peers.values()) {
            held[i++] = p.has.cardinality();
        }
        // missing(), not held(): held() copies the bitfield piece by piece, on the run's loop every tick.
        int missing = requests.missing();
        catchUp.tick(pieceCount - missing, held, missing == 0);
    }

    @Override
    public void loopStalled(long nanos) {
        orphans.loopStalled(nanos);
    }

    /** Stops the components that run on their own: choking rounds, the linger, phase 1, the HAVE batches. */
    void stop() {
        chokeDriver.stop();
        linger.cancel();
        phase1.close();
        stored.close();
    }

    /** Pieces missing from the store and not pending from S3 in this node's own works: to come from peers. */
    private static int piecesToCome(PieceStore store, ShareFetcher phase1) {
        WorkList.Remaining own = phase1.workList().remaining();
        return Math.max(0, store.layout().pieceCount() - store.presentCount() - own.piecesToHandOut() - own.piecesInFlight());
    }

    /** The digest a piece from a peer must match now, null when none ({@link DigestExchange#expected}). */
    private byte[] expected(int piece) {
        return digests.expected(piece);
    }

    private PeerHandler handler(NodeInfo dialed) {
        return connections.handler(dialed);
    }

    /** Bytes came from S3 (on an S3 thread): phase 1's fetch makes progress. */
    private void s3Progress() {
        phase1.s3Progress();
    }

    /** A seed for one of the run's random choices, from the node id: runs are reproducible per node. */
    private static long seed(String nodeId, int salt) {
        long h = nodeId.hashCode() * 0x9E3779B97F4A7C15L + salt;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h;
    }
}
