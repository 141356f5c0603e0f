package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.netty.channel.EventLoop;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ClusterTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's part of one cluster broadcast, as a lifecycle: {@link #start} joins the group ({@link GroupJoin}),
 * {@link #begin} fixes this node's share ({@link NodeShare}) and starts phase 1 and the timers; peers come and go
 * ({@link Connections}); each stored piece goes to {@link PieceStored}; on the last piece {@link #complete}
 * completes {@link #completion()} with what {@link OutcomeTally} counted, and the node lingers ({@link Linger});
 * {@link #finish} closes everything. The rules live in the components {@link RunParts} makes and wires
 * (architecture.md, "The run's components").
 *
 * <p>Every decision is taken on the run's event loop: connection handlers on other loops post what they receive
 * to it, the S3 fetch posts stored pieces to it, the registry posts joins and leaves. Work that may block happens
 * elsewhere (registry calls on the cluster's blocking threads, writes of received pieces on its disk threads);
 * serving a {@code REQUEST} happens on the connection's own loop and reads only thread-safe state.
 */
final class NodeRun implements ClusterRun, GroupJoin.Run, Housekeeping.Run {

    private static final Logger LOG = LoggerFactory.getLogger(NodeRun.class);

    private final PeerCluster cluster;
    private final ClusterConfig config;
    private final ClusterTask task;
    private final int pieceCount;
    private final GroupId group;
    private final EventLoop loop;
    private final Ticker ticker;
    private final OutcomeTally tally;
    private final CompletableFuture<Outcome> completion = new CompletableFuture<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private final Map<String, Peer> peers = new TreeMap<>(); // run loop only
    private final RunParts c;
    private final Housekeeping housekeeping;
    // Read from other threads.
    private volatile boolean closing;
    private volatile String self;
    private volatile PeerPipeline pipeline;
    // Run loop only.
    private boolean begun;
    private boolean complete;
    private Leaving leaving;

    NodeRun(PeerCluster cluster, ClusterTask task) {
        this.cluster = cluster;
        this.config = cluster.config();
        this.task = task;
        this.pieceCount = task.store().layout().pieceCount();
        this.group = GroupId.of(task.object().bucket(), task.object().key(), task.object().eTag(), config.groupName());
        this.loop = cluster.nextLoop();
        this.ticker = config.ticker();
        this.tally = new OutcomeTally(ticker.read());
        this.c = new RunParts(this, cluster, task, loop, peers, tally);
        this.housekeeping = new Housekeeping(loop, config.ticker(), this, c);
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

    @Override
    public boolean isComplete() {
        return complete;
    }

    /** Whether this node leaves the run: it hands its works on, serves, and asks for nothing ({@link #leave}). */
    @Override
    public boolean leaving() {
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

    void start() {
        if (pieceCount == 0) {
            completion.complete(OutcomeTally.EMPTY);
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
        c.handBack.begin(ids, share.units());
        if (late) {
            LOG.info("{} joins {} {}", self, group, share);
        } else {
            LOG.debug("{}: {}", self, share);
        }
        c.connections.watch();
        housekeeping.start();
        c.chokeDriver.start();
        // The pieces announced, not those on disk: a piece whose stored() is still queued leaves the works left when
        // its HAVE is written, not before (PieceStored.announced).
        // Its reads go narrow until the overlay is up: every other member, up to the overlay's size (NarrowStart).
        int overlay = Math.min(config.overlayPeers(), Math.max(0, ids.size() - 1));
        c.phase1.begin(share.works(), share.sizing(), c.stored.announced(), share.alone(), overlay);
        c.phase1.peersConnected(peers.size());
        // Complete when the run was made (a resumed fetch): the pieces announced, not the store's. A piece phase 1
        // wrote meanwhile is announced by its stored(), which completes the run after its HAVE; completing here
        // would greet a peer with DONE before that HAVE, and the peer bans this node.
        if (c.requests.isComplete()) {
            complete();
        }
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
        Outcome outcome = tally.outcome(phase1EndNanos, now, c.phase1.piecesStolen());
        LOG.debug("{}: complete {}", self, outcome);
        completion.complete(outcome);
        checkLingerEnd();
    }

    @Override
    public void checkLingerEnd() {
        if (!closing) {
            c.linger.check();
        }
    }

    /**
     * The fetch was cancelled (by the application, or by {@code Broadcast.close}) before this node was complete: a
     * graceful leave ({@link Leaving}); before its share was fixed, after it completed, or with no peer, it
     * finishes at once.
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
        c.phase1.leave(Leaving.GRACE_MILLIS);
        checkLeft();
    }

    /** Leaving: finishes when {@link Leaving} says it may go. */
    @Override
    public void checkLeft() {
        if (leaving != null && !closing && leaving.mayGoNow(self, c.phase1.handedOff(), task.store().bitfield(),
                peers.values())) {
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
        housekeeping.stop();
        c.stop();
        cluster.router().unregister(group.hash(), c.connections);
        CompletableFuture<Void> closed = c.channels.closeAll(complete ? "done" : leaving != null ? "left" : "stopped");
        peers.clear();
        closed.whenComplete((v, e) -> c.registry.leave(cluster.blocking(), self, group)
                .whenComplete((x, y) -> finished.complete(null)));
    }
}
