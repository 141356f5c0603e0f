package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ClusterTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's part of one cluster broadcast, as a lifecycle: {@link #start} joins the group ({@link GroupJoin}),
 * {@link #begin} fixes this node's share ({@link NodeShare}) and starts phase 1 and the timers; peers come and go
 * ({@link Connections}); each stored piece goes to {@link PieceStored}; on the last piece {@link #complete}
 * completes {@link #completion()} and the node lingers ({@link Linger}); {@link #finish} closes everything. The
 * rules live in the components {@link RunParts} makes and wires (architecture.md, "The run's components").
 *
 * <p>Every decision is taken on the run's event loop: connection handlers on other loops post what they receive
 * to it, the S3 fetch posts stored pieces to it, the registry posts joins and leaves. Work that may block happens
 * elsewhere (registry calls on the cluster's blocking threads, writes of received pieces on its disk threads);
 * serving a {@code REQUEST} happens on the connection's own loop and reads only thread-safe state.
 */
final class NodeRun implements ClusterRun, GroupJoin.Run {

    private static final Logger LOG = LoggerFactory.getLogger(NodeRun.class);

    /** Pieces with a bad CRC32C, or piece requests unanswered in time, from one peer before it is banned. */
    static final int BAN_THRESHOLD = 3;
    /** A member that has not connected for this long counts as gone (its share falls to the orphan rule). */
    static final long CONNECT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long HOUSEKEEPING_MILLIS = 100;
    /**
     * A node that leaves mid-run (its fetch cancelled, its {@code Broadcast} closed) gives thieves this long to take
     * its unfinished works before it releases the rest to its peers' orphan rule ({@link Leaving} says when it goes).
     */
    static final long LEAVE_GRACE_MILLIS = 2_000;

    private final PeerCluster cluster;
    private final ClusterConfig config;
    private final ClusterTask task;
    private final int pieceCount;
    private final GroupId group;
    private final EventLoop loop;
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
    private Leaving leaving;
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
            if (e instanceof CancellationException) {
                execute(this::leave); // the fetch was cancelled or the Broadcast closed: a graceful leave
            } else if (e != null) {
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

    /** Whether this node leaves the run: it hands its works on, serves, and asks for nothing ({@link #leave}). */
    boolean leaving() {
        return leaving != null;
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
        cluster.router().register(group.hash(), c.connections);
        if (closing) {
            cluster.router().unregister(group.hash(), c.connections);
            return false;
        }
        return true;
    }

    @Override
    public void members(List<NodeInfo> members, boolean late) {
        execute(() -> begin(members, late));
    }

    /** Fixes the membership and this node's share, starts phase 1 and the timers. */
    private void begin(List<NodeInfo> members, boolean late) {
        if (closing || begun) {
            return;
        }
        begun = true;
        List<String> ids = new ArrayList<>();
        for (NodeInfo n : members) {
            ids.add(n.nodeId());
            c.connections.memberJoined(n);
        }
        // Without an expected count, nodes begin with whoever they see, so views may differ: rendezvous shares.
        boolean rendezvous = config.expectedNodes() == 0;
        NodeShare share = NodeShare.of(c.plan, task.sizing(), task.store().layout(), ids, self, late, rendezvous);
        c.handBack.begin(ids, rendezvous && !late);
        if (late) {
            LOG.info("{} joins {} {}", self, group, share);
        } else {
            LOG.debug("{}: {}", self, share);
        }
        c.connections.watch();
        housekeeping = loop.scheduleAtFixedRate(this::housekeeping, HOUSEKEEPING_MILLIS, HOUSEKEEPING_MILLIS,
                TimeUnit.MILLISECONDS);
        c.chokeDriver.start();
        c.phase1.begin(share.works(), share.sizing(), task.store().bitfield());
        if (task.store().isComplete()) {
            complete();
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
        if (leaving != null) {
            checkLeft();
            return;
        }
        c.membership.expirePending();
        c.dialer.fill();
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
        if (complete || leaving != null) {
            return;
        }
        complete = true;
        // DONE is checked against the pieces announced: no HAVE may still be waiting.
        c.stored.flushHaves();
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

    /**
     * The fetch was cancelled (by the application, or by {@code Broadcast.close}) before this node was complete: a
     * graceful leave. The node stops reading S3 and requesting pieces, hands its unfinished works to its peers
     * through phase 1's give-away path ({@link ShareFetcher#leave}: thieves for {@link #LEAVE_GRACE_MILLIS}, then
     * {@code WORKS_LEFT(0)} so that the rest falls to the peers' orphan rule), keeps serving meanwhile, the pieces
     * only it holds first (peers pick the rarest), until every piece it holds is held by a peer too or {@link
     * Leaving#LIMIT_NANOS} passed, and then finishes: {@code GOODBYE(NORMAL)}, which tells peers it left the run, and
     * the registry. Before its share was
     * fixed, after it completed, or with no peer, it finishes at once.
     */
    private void leave() {
        if (closing || leaving != null) {
            return;
        }
        if (!begun || complete || peers.isEmpty()) {
            finish();
            return;
        }
        leaving = new Leaving(ticker);
        LOG.info("{} leaves {} before it is complete: its unfinished works go to its {} peers first", self, group,
                peers.size());
        c.phase1.leave(LEAVE_GRACE_MILLIS);
        checkLeft();
    }

    /** Leaving: finishes when {@link Leaving} says it may go. */
    private void checkLeft() {
        if (leaving == null || closing) {
            return;
        }
        int only = leaving.mayGo(c.phase1.handedOff(), task.store().bitfield(), peers.values());
        if (only >= 0) {
            LOG.info("{}: leaves after {} ms{}", self, leaving.elapsedMillis(),
                    only > 0 ? "; " + only + " pieces no peer took from it yet will be read from S3 again" : "");
            finish();
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
        c.stored.close();
        cluster.router().unregister(group.hash(), c.connections);
        CompletableFuture<Void> channelsClosed = c.channels.closeAll(complete ? "done" : leaving != null ? "left" : "stopped");
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
