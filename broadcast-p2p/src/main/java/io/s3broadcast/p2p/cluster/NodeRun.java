package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.Strategy;
import io.s3broadcast.internal.cluster.ChokeScheduler;
import io.s3broadcast.internal.cluster.ClusterPlan;
import io.s3broadcast.internal.cluster.PieceSelector;
import io.s3broadcast.internal.cluster.RequestScheduler;
import io.s3broadcast.internal.cluster.Shares;
import io.s3broadcast.internal.cluster.SourcePieces;
import io.s3broadcast.internal.cluster.WorkSizing;
import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.Cancel;
import io.s3broadcast.p2p.protocol.Choke;
import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.Done;
import io.s3broadcast.p2p.protocol.GiveWorkRequest;
import io.s3broadcast.p2p.protocol.GiveWorkResponse;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.Have;
import io.s3broadcast.p2p.protocol.Interested;
import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.p2p.protocol.NotInterested;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.p2p.protocol.Piece;
import io.s3broadcast.p2p.protocol.PieceWriter;
import io.s3broadcast.p2p.protocol.Reject;
import io.s3broadcast.p2p.protocol.Request;
import io.s3broadcast.p2p.protocol.Unchoke;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.registry.AdvertisedAddress;
import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.MembershipListener;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.registry.NodeRegistry;
import io.s3broadcast.registry.RegistryConfig;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ClusterTask;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.RangeReads;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.PeerSecurity;
import io.s3broadcast.spi.SourceListener;
import java.time.Duration;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's part of one cluster broadcast. Every decision is taken on one event loop, the run's
 * {@link #loop}: connection handlers on other loops post what they receive to it, the S3 fetch posts
 * stored pieces to it, the registry posts joins and leaves. Fields without a note are touched on that loop
 * only. Work that may block happens elsewhere: registry calls on the cluster's blocking threads, writes of
 * received pieces on its disk threads; serving a {@code REQUEST} happens on the connection's own loop
 * (zero-copy from the store's file) and reads only thread-safe state.
 *
 * <p>Life: {@link #start} opens and joins the registry, waits for the expected nodes, then {@link #begin}
 * fixes the membership and this node's share; phase 1 fetches the work list from S3 (stealing more when it
 * runs dry, for STEAL and OVERLAP); phase 2 requests pieces from peers (from the start for OVERLAP, once every
 * node reported an empty work list otherwise); the orphan rule fetches from S3 what nobody has and nobody
 * will fetch; on the last piece {@link #complete} completes {@link #completion()}, and the node lingers to
 * serve until every peer is done or the linger time is over; {@link #finish} closes everything.
 *
 * <p>The rules live in the components it coordinates: {@link RegistrySession} (joining the group), {@link
 * Membership}, {@link Dialer} and {@link PeerChannels} (connections), {@link MessageDispatch} (each message type to
 * its handler), {@link PieceExchange} (phase 2's requests), {@link ChokeDriver}, {@link PieceServer} and {@link
 * Linger}; the integrity components ({@link PieceReceiver}, {@link DigestExchange}, {@link Disputes}, {@link
 * Repairs}, {@link BanList}); it keeps the peer map, the lifecycle and the wiring.
 */
final class NodeRun implements ClusterRun, GroupRouter.Target {

    private static final Logger LOG = LoggerFactory.getLogger(NodeRun.class);

    /** Pieces with a bad CRC32C, or piece requests unanswered in time, from one peer before it is banned. */
    static final int BAN_THRESHOLD = 3;
    /** A member that has not connected for this long counts as gone (its share falls to the orphan rule). */
    static final long CONNECT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How long the orphan condition must hold before orphans are taken (messages in flight settle). */
    static final long ORPHAN_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(300);
    static final long HOUSEKEEPING_MILLIS = 100;

    private final PeerCluster cluster;
    private final ClusterConfig config;
    private final ClusterTask task;
    private final Strategy strategy;
    private final PieceStore store;
    private final PieceLayout layout;
    private final int pieceCount;
    private final GroupId group;
    final EventLoop loop;
    private final Ticker ticker;
    private final long startNanos;
    private final CompletableFuture<Outcome> completion = new CompletableFuture<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    /** The strategy as an object: plans phase 1 and gates phase 2. */
    private final ClusterPlan plan;
    /** Phase 1: the work list, its S3 fetch, stealing and giving works, and the phase-2 gate. */
    private final ShareFetcher phase1;
    private final RequestScheduler requests;
    private final ChokeScheduler choke;
    private final SourceListener s3Listener;
    private final PieceServing serving;
    /** The integrity rules: DIGESTS, pieces from peers, disputes settled by S3, repairs and spot checks. */
    private final DigestExchange digests;
    private final PieceReceiver receiver;
    private final Disputes disputes;
    private final Repairs repairs;
    /** Pieces not to be served: stored but under a check from S3 (a view of {@link Disputes#quarantine}). */
    private final Set<Integer> quarantine;

    // Read from other threads.
    private volatile boolean closing;
    private volatile String self;
    private volatile PeerPipeline pipeline;
    private final RegistrySession registry;
    /** Peers not served, asked or taken back: broke a rule, or lied ({@link BanList}). */
    private final BanList banned;
    private final Set<String> exchangedWith = ConcurrentHashMap.newKeySet();
    private final PeerChannels channels;
    private final PieceServer server;

    // Run loop only.
    private final Map<String, Peer> peers = new TreeMap<>();
    private final Membership membership;
    /** {@link #membership}'s members and members not connected yet (read-only views). */
    private final Map<String, NodeInfo> members;
    private final Map<String, Long> pendingSince;
    private final Dialer dialer;
    private final PieceExchange exchange;
    private final ChokeDriver chokeDriver;
    private final Linger linger;
    private final MessageDispatch dispatch;
    private boolean begun;
    private boolean complete;
    private long bytesFromPeers;
    private long orphanSince = -1;
    private int orphanRounds;
    private ScheduledFuture<?> housekeeping;


    NodeRun(PeerCluster cluster, ClusterTask task) {
        this.cluster = cluster;
        this.config = cluster.config();
        this.task = task;
        this.strategy = task.strategy();
        this.store = task.store();
        this.layout = store.layout();
        this.pieceCount = layout.pieceCount();
        this.serving = cluster.serving();
        // First-hand digests: this node's own S3 reads and what peers vouched for.
        Vouches vouches = new Vouches(pieceCount);
        store.keepDigests();
        this.group = GroupId.of(task.object().bucket(), task.object().key(), task.object().eTag(), config.groupName());
        this.registry = new RegistrySession(cluster.timer());
        this.membership = new Membership(config.ticker(), CONNECT_GRACE_NANOS);
        this.members = membership.members();
        this.pendingSince = membership.pending();
        this.banned = new BanList(BAN_THRESHOLD, () -> self, this::sentence);
        this.disputes = new Disputes(() -> self, group.toString(), store, vouches, this::expected, banned,
                pieces -> SourceCheck.fetch(task, pieces), this::execute, cluster.disk(), disputesRun());
        this.quarantine = disputes.quarantine();
        this.digests = new DigestExchange(store, vouches, members::containsKey, serving,
                (first, d) -> pipeline.signDigests(first, d), (d, peer) -> pipeline.verify(d, peer), disputes);
        this.receiver = new PieceReceiver(() -> self, store, this::expected, vouches, members::containsKey, banned,
                disputes, cluster.disk(), this::execute, receiverRun());
        this.repairs = new Repairs(() -> self, layout, vouches, disputes, members::size, SecureRandom::new,
                samples -> SpotCheck.run(samples, task.source(), task.object(), store, cluster.disk(), task.listener()),
                this::execute);
        this.loop = cluster.nextLoop();
        this.ticker = config.ticker();
        this.startNanos = ticker.read();
        this.plan = ClusterPlan.of(strategy);
        this.phase1 = new ShareFetcher(config.nodeId(), plan, pieceCount, new Random(seed(config.nodeId(), 1)),
                phaseOneRun(), this::fetchFromS3, this::execute, loop, ticker);
        this.requests = RequestScheduler.builder(pieceCount)
                .have(store.bitfield())
                .selector(PieceSelector.randomizedRarest(new Random(seed(config.nodeId(), 2))))
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
        this.choke = ChokeScheduler.builder()
                .configure(config)
                .random(new Random(seed(config.nodeId(), 3)))
                .build();
        this.s3Listener = new SourceListener() {
            @Override
            public void bytesReceived(long bytes) {
                task.listener().bytesReceived(bytes);
            }

            @Override
            public void pieceStored(int piece) {
                task.listener().pieceStored(piece);
                execute(() -> stored(piece, null));
            }

            @Override
            public void retrying(PieceRun run, int attempt, long delayMillis, Throwable cause) {
                task.listener().retrying(run, attempt, delayMillis, cause);
            }
        };
        this.exchange = new PieceExchange(peers, requests, ticker, config.limits().requestTimeout(),
                () -> !closing && !complete && phase2Allowed(), () -> !complete, piece -> expected(piece) != null,
                this::misbehaved, () -> self);
        this.chokeDriver = new ChokeDriver(choke, peers, loop, config.unchokeSlots());
        this.linger = new Linger(peers, loop, config.linger(), membership::anyPending, this::finish);
        this.channels = new PeerChannels(loop, cluster.tls(), () -> pipeline, p -> LinkEmulation.apply(self, p));
        this.server = new PieceServer(store, serving, choke, banned::contains, quarantine, exchangedWith,
                config.maxRequestsPerPeer(), () -> closing);
        this.dialer = new Dialer(() -> self, membership, peers, banned::contains, loop,
                (node, failed) -> channels.dial(node, new PeerHandler(this, node, config.limits().serveBytesPerSecond()))
                        .addListener((ChannelFutureListener) f -> {
                            if (!f.isSuccess()) {
                                execute(failed);
                            }
                        }),
                () -> closing, () -> complete && linger.allPeersDone());
        this.dispatch = new MessageDispatch()
                .on(MessageType.PIECE, Piece.class, this::pieceArrived)
                .on(MessageType.BITFIELD, BitfieldMessage.class, exchange::bitfield)
                .on(MessageType.HAVE, Have.class, exchange::have)
                .on(MessageType.CHOKE, Choke.class, (p, m) -> exchange.choked(p))
                .on(MessageType.UNCHOKE, Unchoke.class, (p, m) -> exchange.unchoked(p))
                .on(MessageType.REJECT, Reject.class, exchange::rejected)
                .on(MessageType.INTERESTED, Interested.class, (p, m) -> chokeDriver.interested(p, true))
                .on(MessageType.NOT_INTERESTED, NotInterested.class, (p, m) -> chokeDriver.interested(p, false))
                .on(MessageType.DONE, Done.class, (p, m) -> peerDone(p))
                .on(MessageType.WORKS_LEFT, WorksLeft.class, this::worksLeft)
                .on(MessageType.GIVE_WORK_REQUEST, GiveWorkRequest.class, this::giveWorkRequested)
                .on(MessageType.GIVE_WORK_RESPONSE, GiveWorkResponse.class, this::giveWorkAnswered)
                .on(MessageType.DIGESTS, Digests.class, this::digestsReceived)
                .on(MessageType.GOODBYE, Goodbye.class, this::goodbyeReceived);
        completion.whenComplete((o, e) -> {
            if (e != null) {
                execute(this::finish);
            }
        });
    }

    @Override
    public CompletableFuture<Outcome> completion() {
        return completion;
    }

    @Override
    public CompletableFuture<Void> finished() {
        return finished;
    }

    /** Runs {@code action} on the run's loop. */
    void execute(Runnable action) {
        loop.execute(() -> {
            try {
                action.run();
            } catch (RuntimeException | Error e) {
                LOG.error("cluster run for {} failed", group, e);
                fail(e);
            }
        });
    }

    /** Fails the run if it is not complete yet, and stops it (a lingering run stops serving). */
    void fail(Throwable error) {
        completion.completeExceptionally(error);
        execute(this::finish);
    }

    // ---------------------------------------------------------------- start: registry and membership

    void start() {
        if (pieceCount == 0) {
            completion.complete(new Outcome(0, Duration.ZERO, Duration.ZERO, 0, 0));
            finished.complete(null);
            return;
        }
        cluster.blocking().execute(() -> {
            try {
                joinRegistry();
            } catch (RuntimeException | Error e) {
                // An Error too (a broken ServiceLoader file is a ServiceConfigurationError): the fetch must end.
                fail(new BroadcastException("cannot join the node registry " + config.registry() + " for " + group + ": " + e, e));
            }
        });
    }

    /** On a blocking thread: opens the registry, registers, waits for the expected nodes. */
    private void joinRegistry() {
        RegistryConfig rc = RegistryConfig.builder(group).s3Client(cluster.registryClient()).build();
        if (!registry.start(NodeRegistry.open(config.registry(), rc)) || closing) {
            registry.registry().close();
            return;
        }
        byte[] secret = secret(registry.registry());
        RegistrySession.Registered me = registry.register(new NodeInfo(config.nodeId(), advertisedHost(), cluster.port()),
                config.expectedNodes());
        self = me.self().nodeId();
        pipeline = PeerChannels.pipeline(config.security(), secret, group.hash(), self, cluster.port(), layout,
                config.limits().handshakeTimeout());
        cluster.router().register(group.hash(), this);
        if (closing) {
            // Stopped while joining: finish() may have run before the registry was set.
            cluster.router().unregister(group.hash(), this);
            registry.registry().close();
            return;
        }
        LOG.debug("{} joined {} as {} ({} members before)", self, group, me.self(), me.membersBefore());
        registry.awaitMembers(config.expectedNodes(), config.expectTimeout())
                .whenComplete((m, e) -> {
                    if (e != null) {
                        fail(e);
                    } else {
                        execute(() -> begin(m.members(), me.late()));
                    }
                });
    }

    /** The group secret: configured, or the registry's; null when insecure. */
    private byte[] secret(NodeRegistry r) {
        PeerSecurity security = config.security();
        if (security.insecure()) {
            return null;
        }
        if (security.secret() != null) {
            return security.secret();
        }
        return r.groupSecret().orElseThrow(() -> new BroadcastException("no group secret: the registry "
                + config.registry() + " cannot hold one, so configure it (Broadcast.builder().secret(...),"
                + " s3broadcast.secret, S3BROADCAST_SECRET or the CLI's --secret-file), or run insecure()"
                + " / --insecure on a trusted network"));
    }

    private String advertisedHost() {
        if (config.advertisedHost() != null) {
            return config.advertisedHost();
        }
        if (!cluster.listenAddress().getAddress().isAnyLocalAddress()) {
            return cluster.listenAddress().getAddress().getHostAddress();
        }
        return AdvertisedAddress.choose().host();
    }

    /** Fixes the membership and this node's share, starts phase 1 and the timers. */
    private void begin(List<NodeInfo> membership, boolean late) {
        if (closing || begun) {
            return;
        }
        begun = true;
        TreeSet<String> ids = new TreeSet<>();
        for (NodeInfo n : membership) {
            ids.add(n.nodeId());
            if (!n.nodeId().equals(self)) {
                memberJoined(n);
            }
        }
        int nodes = plan.sharingNodes(ids.contains(self) ? ids.size() : ids.size() + 1);
        // A late node has no share; its reads (of works it steals) are sized as a member's would be.
        WorkSizing.Sizing sizing = task.sizing().size(
                WorkSizing.Share.of(Shares.end(pieceCount, nodes, 0), layout.pieceSize(), nodes));
        List<PieceRun> share = List.of();
        if (!late) {
            ids.add(self);
            int index = new ArrayList<>(ids).indexOf(self);
            share = plan.share(pieceCount, nodes, index, sizing);
            LOG.debug("{}: {} of {} nodes, share {} in {} works, {}", self, index, ids.size(), share.isEmpty() ? "empty"
                    : "[" + share.get(0).first() + ", " + share.get(share.size() - 1).end() + ")", share.size(), sizing);
        } else {
            LOG.info("{} joins {} late: no share, it steals and pulls", self, group);
        }
        try {
            registry.watch(new MembershipListener() {
                @Override
                public void joined(NodeInfo node) {
                    execute(() -> memberJoined(node));
                }

                @Override
                public void left(NodeInfo node) {
                    execute(() -> memberLeft(node));
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("{}: cannot watch the registry for {}: {}", self, group, e.toString());
        }
        housekeeping = loop.scheduleAtFixedRate(this::housekeeping, HOUSEKEEPING_MILLIS, HOUSEKEEPING_MILLIS,
                TimeUnit.MILLISECONDS);
        chokeDriver.start();
        phase1.begin(share, sizing, store.bitfield());
        if (store.isComplete()) {
            complete();
        }
    }

    private void memberJoined(NodeInfo node) {
        if (closing || node.nodeId().equals(self) || !membership.joined(node, peers.containsKey(node.nodeId()))) {
            return;
        }
        dialer.memberJoined(node);
    }

    private void memberLeft(NodeInfo node) {
        membership.left(node);
        checkLingerEnd();
    }

    // ---------------------------------------------------------------- connections

    /** Called by the router on the channel's loop: installs this run's handlers on an inbound channel. */
    @Override
    public boolean adoptInbound(Channel ch) {
        if (closing) {
            return false;
        }
        channels.adopt(ch, new PeerHandler(this, null, config.limits().serveBytesPerSecond()));
        return true;
    }

    /** {@code ch}'s peer proved the group secret: it no longer counts against the pending connections. */
    void authenticated(Channel ch) {
        cluster.pending().authenticated(ch);
    }

    /** The handshake with {@code h}'s peer was accepted. */
    void connected(PeerHandler h) {
        String id = h.peerId;
        dialer.handshaken(h.dialed);
        if (closing) {
            h.ctx.close();
            return;
        }
        if (banned.contains(id)) {
            goodbye(h, banned.isLiar(id) ? Goodbye.Reason.BAD_PIECE : Goodbye.Reason.PROTOCOL_ERROR, "banned");
            return;
        }
        if (peers.containsKey(id)) {
            goodbye(h, Goodbye.Reason.DUPLICATE_CONNECTION, "already connected");
            return;
        }
        if (peers.size() >= config.limits().maxPeers()) {
            LOG.warn("{}: refusing {}: already {} peers, the most this node accepts (s3broadcast.maxPeers)", self, h,
                    peers.size());
            goodbye(h, Goodbye.Reason.TOO_MANY_CONNECTIONS, "this node has " + peers.size() + " peers already");
            return;
        }
        Peer p = new Peer(id, h, pieceCount);
        peers.put(id, p);
        task.listener().peerConnected(id);
        if (!membership.isMember(id)) {
            // A peer the registry has not shown yet: a member that just joined. Look now, not at the next poll.
            registry.refresh();
        }
        membership.connected(id);
        dialer.connected(id);
        choke.peerConnected(id);
        Bitfield have = store.bitfield();
        if (begun) {
            // Pieces already on disk whose stored() has not run yet: mark them in the work list now, so the
            // WORKS_LEFT below agrees with the BITFIELD (the peer checks one against the other).
            for (int piece = have.nextSet(0); piece >= 0; piece = have.nextSet(piece + 1)) {
                phase1.workList().pieceStored(piece);
            }
        }
        h.write(BitfieldMessage.of(have));
        // Right after the BITFIELD (which must come first): a peer asks only for pieces it has a digest of.
        sendOwnDigests(h);
        if (begun) {
            h.write(new WorksLeft(phase1.worksLeft()));
        }
        if (complete) {
            h.write(Done.INSTANCE);
        }
        h.flush();
        LOG.debug("{}: connected to {}", self, h);
    }

    /** {@code h}'s connection closed. */
    void disconnected(PeerHandler h) {
        String id = h.peerId;
        if (id == null || peers.get(id) == null || peers.get(id).handler != h) {
            dialer.connectionClosed(h.dialed);
            return;
        }
        Peer p = peers.remove(id);
        requests.peerLeft(id);
        phase1.peerLeft(id);
        choke.peerLeft(id);
        if (closing) {
            return; // finish() told the listener
        }
        task.listener().peerDisconnected(id);
        if (!p.done) {
            LOG.info("{}: lost {} before it was done; its requests go elsewhere", self, id);
        }
        // phase1.peerLeft abandoned a request outstanding to it; pumpPhase1 asks the scheduler again.
        pumpAll();
        pumpPhase1();
        rechokeIfSlotsFree();
        checkLingerEnd();
        dialer.peerLost(id, p.done);
    }

    private void goodbye(PeerLink h, Goodbye.Reason reason, String detail) {
        h.goodbye(reason, detail);
    }

    // ---------------------------------------------------------------- messages

    /** A message from {@code h}'s peer; this method owns it. */
    void received(PeerHandler h, PeerMessage msg) {
        Peer p = h.peerId == null ? null : peers.get(h.peerId);
        if (p == null || p.handler != h || closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!p.bitfieldReceived && msg.type() != MessageType.BITFIELD && msg.type() != MessageType.GOODBYE) {
            misbehaved(p, "sent " + msg.type() + " before its BITFIELD");
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!dispatch.dispatch(p, msg)) {
            ReferenceCountUtil.release(msg);
        }
    }

    /** {@code p} says it holds every piece: checked against what it announced. */
    private void peerDone(Peer p) {
        if (p.has.cardinality() != pieceCount) {
            misbehaved(p, "sent DONE holding " + p.has.cardinality() + " of " + pieceCount + " pieces");
            return;
        }
        p.done = true;
        p.worksLeft = 0;
        exchange.holdsAll(p, pieceCount);
        checkPhase2Start();
        checkLingerEnd();
    }

    private void worksLeft(Peer p, WorksLeft w) {
        int missing = pieceCount - p.has.cardinality();
        if (w.works() > missing) {
            // Every work not completely stored lacks at least one piece.
            misbehaved(p, "claims " + w.works() + " works left while it lacks only " + missing + " pieces");
            return;
        }
        p.worksLeft = w.works();
        if (w.works() > 0) {
            orphanRounds = 0;
        }
        phase1.worksLeft(p.id, w.works());
    }

    private void giveWorkRequested(Peer p, GiveWorkRequest g) {
        phase1.giveWorkRequested(p.id, g.requestId(), GiveWorkResponse.maxWorks(p.handler.peerMaxFrameLength));
    }

    private void giveWorkAnswered(Peer p, GiveWorkResponse g) {
        if (!phase1.giveWorkAnswered(p.id, g.requestId(), g.works(), store::hasPiece)) {
            misbehaved(p, "sent GIVE_WORK_RESPONSE " + g.requestId() + " that this node did not ask for");
        }
    }

    private void digestsReceived(Peer p, Digests d) {
        if (digests.received(p.id, d)) {
            pumpAll();
        }
    }

    private void goodbyeReceived(Peer p, Goodbye g) {
        LOG.debug("{}: {} says goodbye: {} {}", self, p.id, g.reason(), g.detail());
        if (g.reason() == Goodbye.Reason.PROTOCOL_ERROR || g.reason() == Goodbye.Reason.BAD_PIECE) {
            banned.add(p.id); // it banned us (or we broke the protocol): neither side wants this connection again
        }
    }

    // ---------------------------------------------------------------- phase 1

    /** Keeps the S3 fetch going and steals when the own list runs dry. */
    private void pumpPhase1() {
        phase1.pump();
    }

    /** Tells peers how many works this node has left when it changed. */
    private void advertiseWorks() {
        phase1.advertiseWorks();
    }

    /** Phase 1 is over as far as this node knows (see {@link ShareFetcher#overEverywhere()}). */
    private boolean phase1OverEverywhere() {
        return phase1.overEverywhere();
    }

    private boolean phase2Allowed() {
        return phase1.phase2Allowed();
    }

    private void checkPhase2Start() {
        phase1.checkPhase2Start();
    }

    /** Reads what {@code queue} hands out from S3 into the store. */
    private CompletableFuture<Void> fetchFromS3(PieceQueue queue, RangeReads reads) {
        return task.source().fetch(task.object(), queue, store, s3Listener, reads);
    }

    /** What phase 1 sees of this run: the connected peers, their work lists, and the phase-2 start. */
    private ShareFetcher.Run phaseOneRun() {
        return new ShareFetcher.Run() {
            @Override
            public Set<String> peers() {
                return peers.keySet();
            }

            @Override
            public boolean send(String peer, PeerMessage msg) {
                Peer p = peers.get(peer);
                if (p == null) {
                    return false;
                }
                p.handler.send(msg);
                return true;
            }

            @Override
            public boolean peersOutOfWork() {
                if (!pendingSince.isEmpty()) {
                    return false;
                }
                for (Peer p : peers.values()) {
                    if (p.worksLeft != 0) {
                        return false;
                    }
                }
                return true;
            }

            @Override
            public void phase2Starts() {
                pumpAll();
            }

            @Override
            public void failed(Throwable error) {
                fail(error);
            }
        };
    }

    // ---------------------------------------------------------------- phase 2

    private void pump(Peer p) {
        exchange.pump(p);
    }

    private void pumpAll() {
        exchange.pumpAll();
    }

    private void updateInterest(Peer p) {
        exchange.updateInterest(p);
    }

    /** A piece arrived from {@code p}: dropped unless asked for, else checked and stored ({@link PieceReceiver}). */
    private void pieceArrived(Peer p, Piece piece) {
        int index = piece.piece();
        if (!p.asked.get(index)) {
            // Not asked for, or cancelled since: dropped, so what a peer can make this node hold is bounded
            // by the requests it has outstanding to that peer.
            piece.release();
            return;
        }
        unask(p, index);
        receiver.arrived(p.id, piece);
    }

    /** How the run takes what {@link Disputes} settles. */
    private Disputes.Run disputesRun() {
        return new Disputes.Run() {
            @Override
            public void pieceAdded(int piece) {
                task.listener().pieceStored(piece);
                stored(piece, null);
            }

            @Override
            public void checksEnded() {
                if (!closing && !complete && requests.isComplete()) {
                    complete();
                }
            }

            @Override
            public void failed(Throwable error) {
                fail(error);
            }
        };
    }

    /** How the run takes what {@link PieceReceiver} judges. */
    private PieceReceiver.Run receiverRun() {
        return new PieceReceiver.Run() {
            @Override
            public boolean closing() {
                return closing;
            }

            @Override
            public void failed(Throwable error) {
                fail(error);
            }

            @Override
            public void downloaded(String peer, int length) {
                choke.downloaded(peer, length);
            }

            @Override
            public void requestFailed(String peer, int piece) {
                requests.requestFailed(peer, piece);
            }

            @Override
            public void stored(String peer, int piece, int length) {
                bytesFromPeers += length;
                exchangedWith.add(peer);
                task.listener().bytesFromPeers(length);
                task.listener().pieceStored(piece);
                NodeRun.this.stored(piece, peer);
            }

            @Override
            public void pump(String peer) {
                Peer p = peers.get(peer);
                if (p != null) {
                    NodeRun.this.pump(p);
                }
            }

            @Override
            public void pumpAll() {
                NodeRun.this.pumpAll();
            }
        };
    }

    /** {@code id} was banned ({@link BanList}): the hook is told, and so is the peer if connected. */
    private void sentence(String id, Goodbye.Reason reason, String why) {
        cluster.bans().banned(self, id);
        Peer p = peers.get(id);
        if (p != null) {
            goodbye(p.handler, reason, why);
        }
    }

    /** Sends this node's first-hand digests of everything it read from S3 so far, in runs. */
    private void sendOwnDigests(PeerHandler h) {
        for (Digests d : digests.ownDigests(h.peerMaxFrameLength)) {
            h.write(d);
        }
    }

    @Override
    public CompletableFuture<Repair> repair() {
        return repairs.repair();
    }

    @Override
    public CompletableFuture<Repair> checkOnePiecePerPeer() {
        return repairs.checkOnePiecePerPeer();
    }

    @Override
    public CompletableFuture<Repair> spotCheck(long budgetBytes) {
        return repairs.spotCheck(budgetBytes);
    }

    /** The digest a piece from a peer must match now, null when none ({@link DigestExchange#expected}). */
    private byte[] expected(int piece) {
        return digests.expected(piece);
    }

    /** {@code piece} is in the store, from S3 ({@code from} null) or from a peer. */
    private void stored(int piece, String from) {
        if (closing) {
            return;
        }
        byte[] own = null;
        if (from == null) {
            own = digests.ownRead(piece);
        }
        phase1.pieceStored(piece, from == null);
        for (RequestScheduler.PeerRequest cancel : requests.pieceStored(piece, from)) {
            Peer p = peers.get(cancel.peer());
            if (p != null) {
                unask(p, piece);
                p.handler.send(new Cancel(piece));
            }
        }
        for (Peer p : peers.values()) {
            // Every peer, done or not: a peer checks our DONE and WORKS_LEFT against the pieces we announced.
            if (own != null) {
                p.handler.write(digests.announce(piece, own));
            }
            p.handler.send(new Have(piece));
            if (p.amInterested && !requests.isInteresting(p.id)) {
                p.amInterested = false;
                p.handler.send(NotInterested.INSTANCE);
            }
        }
        advertiseWorks();
        if (requests.isComplete()) {
            // Not while pieces are under a check from S3: they may turn out wrong.
            if (disputes.idle()) {
                complete();
            }
            return;
        }
        if (from == null) {
            pumpPhase1();
            if (phase2Allowed() || requests.isEndgame()) {
                pumpAll();
            }
        }
    }

    /** Serves a request on the connection's own loop: zero-copy from the store, or a {@code REJECT}. */
    void serve(PeerHandler h, int piece) {
        server.serve(h, piece);
    }

    private void rechokeIfSlotsFree() {
        chokeDriver.rechokeIfSlotsFree();
    }

    // ---------------------------------------------------------------- orphans, completion, lingering

    private void housekeeping() {
        if (closing) {
            return;
        }
        long now = ticker.read();
        membership.expirePending();
        if (complete) {
            checkLingerEnd();
            return;
        }
        checkPhase2Start();
        exchange.expireRequests();
        takeOrphans(now);
    }

    /** {@code piece} is no longer outstanding to {@code p}. */
    private static void unask(Peer p, int piece) {
        p.unask(piece);
    }

    /**
     * {@code p} sent something out of state or a claim it cannot back: logged, told why, closed and not taken
     * back for this broadcast.
     */
    private void misbehaved(Peer p, String what) {
        LOG.warn("{}: closing the connection to {}: it {}", self, p, what);
        banned.add(p.id);
        p.link.goodbye(Goodbye.Reason.MISBEHAVIOUR, what);
    }

    /** The handshake of {@code h}'s connection failed; a failed proof of the secret is logged once per host. */
    void handshakeFailed(PeerHandler h, io.s3broadcast.p2p.protocol.HandshakeException e) {
        channels.handshakeFailed(self, h, e);
    }

    /**
     * The end-of-run rule: once phase 1 is over everywhere this node can see, pieces that it lacks, that no
     * connected peer holds and that nobody is to fetch (a dead node's unfinished works, gaps between views of
     * the membership) are fetched from S3. The nodes that are not done share them out deterministically
     * ({@link Shares#reassign}, survivors in node id order), so each orphan is read about once; when orphans
     * remain after a round without anyone advertising work, views disagree and this node takes them all.
     */
    private void takeOrphans(long now) {
        if (!phase1OverEverywhere()) {
            orphanSince = -1;
            return;
        }
        Bitfield have = store.bitfield();
        Bitfield orphans = new Bitfield(pieceCount);
        for (int p = have.nextClear(0); p >= 0; p = have.nextClear(p + 1)) {
            if (!phase1.workList().isPending(p) && !disputes.isChecking(p) && (requests.availability(p) == 0 || expected(p) == null)) {
                orphans.set(p);
            }
        }
        if (orphans.cardinality() == 0) {
            orphanSince = -1;
            return;
        }
        if (orphanSince < 0) {
            orphanSince = now;
            return;
        }
        if (now - orphanSince < ORPHAN_GRACE_NANOS) {
            return;
        }
        orphanSince = -1;
        List<String> survivors = new ArrayList<>();
        survivors.add(self);
        for (Peer p : peers.values()) {
            if (!p.done) {
                survivors.add(p.id);
            }
        }
        survivors.sort(null);
        boolean all = orphanRounds++ > 0;
        int n = all ? 1 : survivors.size();
        List<PieceRun> mine = Shares.reassign(orphans, new Bitfield(pieceCount), n, phase1.sizing().workPieces())
                .get(all ? 0 : survivors.indexOf(self));
        LOG.info("{}: {} pieces nobody has or will fetch; this node fetches {} of them from S3{}", self,
                orphans.cardinality(), mine.stream().mapToInt(PieceRun::count).sum(), all ? " (all: views disagree)" : "");
        phase1.take(mine);
    }

    private void complete() {
        if (complete) {
            return;
        }
        complete = true;
        long now = ticker.read();
        long phase1EndNanos = phase1.phase1End(now);
        choke.seeding(true);
        linger.completed();
        Outcome outcome = new Outcome(bytesFromPeers, Duration.ofNanos(phase1EndNanos - startNanos),
                Duration.ofNanos(now - phase1EndNanos), phase1.piecesStolen(), exchangedWith.size());
        LOG.debug("{}: complete {}", self, outcome);
        completion.complete(outcome);
        checkLingerEnd();
    }

    private void checkLingerEnd() {
        if (!closing) {
            linger.check();
        }
    }

    /** Stops everything: the S3 fetch, timers, connections, the registry; then completes {@link #finished()}. */
    void finish() {
        if (closing) {
            return;
        }
        closing = true;
        for (String id : peers.keySet()) {
            task.listener().peerDisconnected(id); // their disconnected() calls come after closing, and say nothing
        }
        if (!completion.isDone()) {
            completion.completeExceptionally(new CancellationException("the cluster run was stopped"));
        }
        if (housekeeping != null) {
            housekeeping.cancel(false);
        }
        chokeDriver.stop();
        linger.cancel();
        phase1.close();
        cluster.router().unregister(group.hash(), this);
        CompletableFuture<Void> channelsClosed = channels.closeAll(complete ? "done" : "stopped");
        peers.clear();
        channelsClosed.whenComplete((v, e) -> {
            try {
                cluster.blocking().execute(this::leaveRegistry);
            } catch (RuntimeException rejected) {
                leaveRegistry();
            }
        });
    }

    private void leaveRegistry() {
        try {
            registry.close();
        } catch (RuntimeException e) {
            LOG.warn("{}: leaving the registry for {} failed: {}", self, group, e.toString());
        } finally {
            finished.complete(null);
        }
    }

    private static long seed(String nodeId, int salt) {
        long h = nodeId.hashCode() * 0x9E3779B97F4A7C15L + salt;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h;
    }
}
