package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.s3broadcast.internal.cluster.Shares;
import io.s3broadcast.internal.cluster.WorkSizing;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.HandshakeException;
import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.MembershipListener;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ClusterTask;
import io.s3broadcast.spi.PieceRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's part of one cluster broadcast: the lifecycle and the peer map. Every decision is taken on the run's
 * {@link #loop}: connection handlers on other loops post what they receive to it, the S3 fetch posts stored pieces
 * to it, the registry posts joins and leaves. Work that may block happens elsewhere (registry calls on the
 * cluster's blocking threads, writes of received pieces on its disk threads); serving a {@code REQUEST} happens
 * on the connection's own loop and reads only thread-safe state.
 *
 * <p>Life: {@link #start} joins the registry and waits for the expected nodes, {@link #begin} fixes the membership
 * and this node's share and starts phase 1; peers come and go ({@link #connected}, {@link #disconnected}); on the
 * last piece {@link #complete} completes {@link #completion()} and the node lingers; {@link #finish} closes
 * everything. The rules live in the components {@link RunParts} wires (architecture.md, "The run's components").
 */
final class NodeRun implements ClusterRun, GroupRouter.Target, GroupJoin.Run {

    private static final Logger LOG = LoggerFactory.getLogger(NodeRun.class);

    /** Pieces with a bad CRC32C, or piece requests unanswered in time, from one peer before it is banned. */
    static final int BAN_THRESHOLD = 3;
    /** A member that has not connected for this long counts as gone (its share falls to the orphan rule). */
    static final long CONNECT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long HOUSEKEEPING_MILLIS = 100;

    private final PeerCluster cluster;
    private final ClusterConfig config;
    private final ClusterTask task;
    private final int pieceCount;
    private final GroupId group;
    final EventLoop loop;
    private final Ticker ticker;
    private final long startNanos;
    private final CompletableFuture<Outcome> completion = new CompletableFuture<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private final Map<String, Peer> peers = new TreeMap<>(); // run loop only
    private final Set<String> exchangedWith = ConcurrentHashMap.newKeySet();
    private final RunParts c;
    // Read from other threads.
    private volatile boolean closing;
    private volatile String self;
    private volatile PeerPipeline pipeline;
    // Run loop only.
    private boolean begun;
    private boolean complete;
    private long bytesFromPeers;
    private ScheduledFuture<?> housekeeping;

    NodeRun(PeerCluster cluster, ClusterTask task) {
        this.cluster = cluster;
        this.config = cluster.config();
        this.task = task;
        this.pieceCount = task.store().layout().pieceCount();
        this.group = GroupId.of(task.object().bucket(), task.object().key(), task.object().eTag(), config.groupName());
        this.loop = cluster.nextLoop();
        this.ticker = config.ticker();
        this.startNanos = ticker.read();
        this.c = new RunParts(this, cluster, task, loop, peers, exchangedWith);
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

    String self() {
        return self;
    }

    GroupId group() {
        return group;
    }

    PeerPipeline pipeline() {
        return pipeline;
    }

    @Override
    public boolean closing() {
        return closing;
    }

    boolean isComplete() {
        return complete;
    }

    /** Runs {@code action} on the run's loop; what it throws fails the run. */
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
    @Override
    public void fail(Throwable error) {
        completion.completeExceptionally(error);
        execute(this::finish);
    }

    // ---------------------------------------------------------------- start

    void start() {
        if (pieceCount == 0) {
            completion.complete(new Outcome(0, Duration.ZERO, Duration.ZERO, 0, 0));
            finished.complete(null);
            return;
        }
        cluster.blocking().execute(() -> GroupJoin.join(cluster, c.registry, group, task.store().layout(), this));
    }

    /** Registered: the router hands this run inbound connections from now on, unless it stopped meanwhile. */
    @Override
    public boolean joined(String self, PeerPipeline pipeline) {
        this.self = self;
        this.pipeline = pipeline;
        cluster.router().register(group.hash(), this);
        if (closing) {
            cluster.router().unregister(group.hash(), this);
            return false;
        }
        return true;
    }

    @Override
    public void members(List<NodeInfo> members, boolean late) {
        execute(() -> begin(members, late));
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
            memberJoined(n);
        }
        int nodes = c.plan.sharingNodes(ids.contains(self) ? ids.size() : ids.size() + 1);
        // A late node has no share; its reads (of works it steals) are sized as a member's would be.
        WorkSizing.Sizing sizing = task.sizing().size(
                WorkSizing.Share.of(Shares.end(pieceCount, nodes, 0), task.store().layout().pieceSize(), nodes));
        List<PieceRun> share = List.of();
        if (!late) {
            ids.add(self);
            int index = new ArrayList<>(ids).indexOf(self);
            share = c.plan.share(pieceCount, nodes, index, sizing);
            LOG.debug("{}: {} of {} nodes, share {} in {} works, {}", self, index, ids.size(), share.isEmpty() ? "empty"
                    : "[" + share.get(0).first() + ", " + share.get(share.size() - 1).end() + ")", share.size(), sizing);
        } else {
            LOG.info("{} joins {} late: no share, it steals and pulls", self, group);
        }
        try {
            c.registry.watch(new MembershipListener() {
                @Override
                public void joined(NodeInfo node) {
                    execute(() -> memberJoined(node));
                }

                @Override
                public void left(NodeInfo node) {
                    execute(() -> {
                        c.membership.left(node);
                        checkLingerEnd();
                    });
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("{}: cannot watch the registry for {}: {}", self, group, e.toString());
        }
        housekeeping = loop.scheduleAtFixedRate(this::housekeeping, HOUSEKEEPING_MILLIS, HOUSEKEEPING_MILLIS,
                TimeUnit.MILLISECONDS);
        c.chokeDriver.start();
        c.phase1.begin(share, sizing, task.store().bitfield());
        if (task.store().isComplete()) {
            complete();
        }
    }

    private void memberJoined(NodeInfo node) {
        if (!closing && !node.nodeId().equals(self) && c.membership.joined(node, peers.containsKey(node.nodeId()))) {
            c.dialer.memberJoined(node);
        }
    }

    // ---------------------------------------------------------------- connections

    /** Called by the router on the channel's loop: installs this run's handlers on an inbound channel. */
    @Override
    public boolean adoptInbound(Channel ch) {
        if (closing) {
            return false;
        }
        c.channels.adopt(ch, new PeerHandler(this, null, config.limits().serveBytesPerSecond()));
        return true;
    }

    /** {@code ch}'s peer proved the group secret: it no longer counts against the pending connections. */
    void authenticated(Channel ch) {
        cluster.pending().authenticated(ch);
    }

    /** The handshake of {@code h}'s connection failed; a failed proof of the secret is logged once per host. */
    void handshakeFailed(PeerHandler h, HandshakeException e) {
        c.channels.handshakeFailed(self, h, e);
    }

    /** The handshake with {@code h}'s peer was accepted: it becomes a peer, unless refused, and is greeted. */
    void connected(PeerHandler h) {
        String id = h.peerId;
        c.dialer.handshaken(h.dialed);
        if (closing) {
            h.ctx.close();
        } else if (c.banned.contains(id)) {
            h.goodbye(c.banned.isLiar(id) ? Goodbye.Reason.BAD_PIECE : Goodbye.Reason.PROTOCOL_ERROR, "banned");
        } else if (peers.containsKey(id)) {
            h.goodbye(Goodbye.Reason.DUPLICATE_CONNECTION, "already connected");
        } else if (peers.size() >= config.limits().maxPeers()) {
            LOG.warn("{}: refusing {}: already {} peers, the most this node accepts (s3broadcast.maxPeers)", self, h,
                    peers.size());
            h.goodbye(Goodbye.Reason.TOO_MANY_CONNECTIONS, "this node has " + peers.size() + " peers already");
        } else {
            peers.put(id, new Peer(id, h, pieceCount));
            task.listener().peerConnected(id);
            if (!c.membership.isMember(id)) {
                // A peer the registry has not shown yet: a member that just joined. Look now, not at the next poll.
                c.registry.refresh();
            }
            c.membership.connected(id);
            c.dialer.connected(id);
            c.choke.peerConnected(id);
            c.greeting.greet(h);
            LOG.debug("{}: connected to {}", self, h);
        }
    }

    /** {@code h}'s connection closed: its requests go to other peers. */
    void disconnected(PeerHandler h) {
        String id = h.peerId;
        if (id == null || peers.get(id) == null || peers.get(id).link != h) {
            c.dialer.connectionClosed(h.dialed);
            return;
        }
        Peer p = peers.remove(id);
        c.requests.peerLeft(id);
        c.phase1.peerLeft(id);
        c.choke.peerLeft(id);
        if (closing) {
            return; // finish() told the listener
        }
        task.listener().peerDisconnected(id);
        if (!p.done) {
            LOG.info("{}: lost {} before it was done; its requests go elsewhere", self, id);
        }
        // phase1.peerLeft abandoned a request outstanding to it; pump asks the scheduler again.
        c.exchange.pumpAll();
        c.phase1.pump();
        c.chokeDriver.rechokeIfSlotsFree();
        checkLingerEnd();
        c.dialer.peerLost(id, p.done);
    }

    /** A message from {@code h}'s peer, to its handler ({@link MessageDispatch}); this method owns it. */
    void received(PeerHandler h, PeerMessage msg) {
        Peer p = h.peerId == null ? null : peers.get(h.peerId);
        if (p == null || p.link != h || closing) {
            ReferenceCountUtil.release(msg);
        } else if (!p.bitfieldReceived && msg.type() != MessageType.BITFIELD && msg.type() != MessageType.GOODBYE) {
            misbehaved(p, "sent " + msg.type() + " before its BITFIELD");
            ReferenceCountUtil.release(msg);
        } else if (!c.dispatch.dispatch(p, msg)) {
            ReferenceCountUtil.release(msg);
        }
    }

    /** Serves a request on the connection's own loop: zero-copy from the store, or a {@code REJECT}. */
    void serve(PeerHandler h, int piece) {
        c.server.serve(h, piece);
    }

    /** {@code p} broke a rule or made a claim it cannot back: logged, told why, closed and not taken back. */
    void misbehaved(Peer p, String what) {
        LOG.warn("{}: closing the connection to {}: it {}", self, p, what);
        c.banned.add(p.id);
        p.link.goodbye(Goodbye.Reason.MISBEHAVIOUR, what);
    }

    /** {@code id} was banned ({@link BanList}): the hook is told, and so is the peer if connected. */
    void sentence(String id, Goodbye.Reason reason, String why) {
        cluster.bans().banned(self, id);
        Peer p = peers.get(id);
        if (p != null) {
            p.link.goodbye(reason, why);
        }
    }

    // ---------------------------------------------------------------- pieces and integrity

    /** {@code piece} is in the store, from S3 ({@code from} null) or from a peer ({@link PieceStored}). */
    void stored(int piece, String from) {
        c.stored.stored(piece, from);
    }

    /** {@code piece} ({@code length} bytes) from {@code peer} was checked and stored. */
    void storedFromPeer(String peer, int piece, int length) {
        bytesFromPeers += length;
        exchangedWith.add(peer);
        task.listener().bytesFromPeers(length);
        task.listener().pieceStored(piece);
        stored(piece, peer);
    }

    /** The digest a piece from a peer must match now, null when none ({@link DigestExchange#expected}). */
    byte[] expected(int piece) {
        return c.digests.expected(piece);
    }

    @Override
    public CompletableFuture<Repair> repair() {
        return c.repairs.repair();
    }

    @Override
    public CompletableFuture<Repair> checkOnePiecePerPeer() {
        return c.repairs.checkOnePiecePerPeer();
    }

    @Override
    public CompletableFuture<Repair> spotCheck(long budgetBytes) {
        return c.repairs.spotCheck(budgetBytes);
    }

    // ---------------------------------------------------------------- timers, completion, the end

    private void housekeeping() {
        if (closing) {
            return;
        }
        c.membership.expirePending();
        if (complete) {
            checkLingerEnd();
            return;
        }
        c.phase1.checkPhase2Start();
        c.exchange.expireRequests();
        c.orphans.check();
    }

    /** Every piece is stored and checked: completes {@link #completion()} and starts lingering. */
    void complete() {
        if (complete) {
            return;
        }
        complete = true;
        long now = ticker.read();
        long phase1EndNanos = c.phase1.phase1End(now);
        c.choke.seeding(true);
        c.linger.completed();
        Outcome outcome = new Outcome(bytesFromPeers, Duration.ofNanos(phase1EndNanos - startNanos),
                Duration.ofNanos(now - phase1EndNanos), c.phase1.piecesStolen(), exchangedWith.size());
        LOG.debug("{}: complete {}", self, outcome);
        completion.complete(outcome);
        checkLingerEnd();
    }

    void checkLingerEnd() {
        if (!closing) {
            c.linger.check();
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
        c.chokeDriver.stop();
        c.linger.cancel();
        c.phase1.close();
        cluster.router().unregister(group.hash(), this);
        CompletableFuture<Void> channelsClosed = c.channels.closeAll(complete ? "done" : "stopped");
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
            c.registry.close();
        } catch (RuntimeException e) {
            LOG.warn("{}: leaving the registry for {} failed: {}", self, group, e.toString());
        } finally {
            finished.complete(null);
        }
    }
}
