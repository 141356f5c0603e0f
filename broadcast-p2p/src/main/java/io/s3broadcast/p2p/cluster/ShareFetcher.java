package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.internal.cluster.ClusterPlan;
import io.s3broadcast.internal.cluster.StealingScheduler;
import io.s3broadcast.internal.cluster.WorkList;
import io.s3broadcast.internal.cluster.WorkSizing;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.RangeReads;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Phase 1 of one node: reads its work list from S3, tells peers how many works it has left, steals when the
 * list runs dry and gives works when asked (as its {@link ClusterPlan} says), and opens phase 2 when the plan
 * allows. Every method runs on the run's loop: {@code onLoop} runs the fetch's completion there and
 * {@code timer} the {@code GIVE_WORK_REQUEST} timeout (both the loop in a run, a manual scheduler in tests);
 * nothing here is thread-safe on its own (the {@link WorkList} is, for the S3 connections that poll it).
 */
final class ShareFetcher {

    private static final Logger LOG = LoggerFactory.getLogger(ShareFetcher.class);

    /** A {@code GIVE_WORK_REQUEST} unanswered for this long is given up ({@link WorkStealing}). */
    static final long GIVE_WORK_TIMEOUT_MILLIS = WorkStealing.GIVE_WORK_TIMEOUT_MILLIS;

    /** What phase 1 needs from the rest of the run. */
    interface Run {
        /** Ids of the connected peers. */
        Set<String> peers();

        /** Sends {@code msg} to {@code peer}; false when it is not connected. */
        boolean send(String peer, PeerMessage msg);

        /** Every member is connected and every peer last reported an empty work list. */
        boolean peersOutOfWork();

        /** Phase 2 may start: request pieces from peers. */
        void phase2Starts();

        /** The S3 fetch failed: the run fails. */
        void failed(Throwable error);
    }

    /** Reads the pieces a queue hands out from S3. */
    interface Source {
        CompletableFuture<Void> fetch(PieceQueue queue, RangeReads reads);
    }

    private final String self;
    private final ClusterPlan plan;
    private final Run run;
    private final Source source;
    private final Executor onLoop;
    private final ScheduledExecutorService timer;
    private final Ticker ticker;
    private final WorkList workList;
    private final StealingScheduler stealing;
    private final WorkStealing steals;
    private WorkSizing.Sizing sizing;
    private boolean begun;
    private boolean closed;
    private CompletableFuture<Void> fetch;
    private boolean phase2Started;
    private int advertisedWorks = -1;
    private long phase1EndNanos = -1;

    ShareFetcher(String self, ClusterPlan plan, int pieceCount, Random random, Run run, Source source,
            Executor onLoop, ScheduledExecutorService timer, Ticker ticker) {
        this.self = self;
        this.plan = plan;
        this.run = run;
        this.source = source;
        this.onLoop = onLoop;
        this.timer = timer;
        this.ticker = ticker;
        this.workList = new WorkList(pieceCount, List.of());
        this.stealing = plan.scheduler(random);
        this.steals = new WorkStealing(self, plan, stealing, workList, pieceCount, run, timer, this::pump);
    }

    /** The work list, which the phase-2 requests consult (a piece pending from S3 is not asked of peers). */
    WorkList workList() {
        return workList;
    }

    /**
     * Phase 1 starts with {@code share} (empty for a node that joined late) read with {@code sizing};
     * {@code have} are pieces already stored. Tells every peer the works left and starts the fetch.
     */
    void begin(List<PieceRun> share, WorkSizing.Sizing sizing, Bitfield have) {
        this.sizing = sizing;
        workList.append(share);
        for (int p = have.nextSet(0); p >= 0; p = have.nextSet(p + 1)) {
            workList.pieceStored(p);
        }
        begun = true;
        advertiseWorks();
        pump();
    }

    boolean begun() {
        return begun;
    }

    /** Sizing of this node's reads; null before {@link #begin}. */
    WorkSizing.Sizing sizing() {
        return sizing;
    }

    /** Works this node has left, the count it advertises. */
    int worksLeft() {
        return workList.remaining().works();
    }

    /** Keeps the S3 fetch going and steals when the own list runs dry. */
    void pump() {
        if (!begun || closed) {
            return;
        }
        StealingScheduler.Step step = stealing.next(workList.remaining());
        switch (step.action()) {
            case FETCH -> {
                steals.waiting(false);
                startFetch();
            }
            case STEAL -> steals.steal(step.victim(), step.requestId());
            case WAIT -> steals.waiting(true);
            case DONE -> {
                steals.waiting(false);
                if (fetch == null && workList.isEmpty() && phase1EndNanos < 0) {
                    phase1EndNanos = ticker.read();
                    LOG.debug("{}: phase 1 done", self);
                }
            }
        }
        checkPhase2Start();
    }

    private void startFetch() {
        if (fetch != null || closed) {
            return;
        }
        CompletableFuture<Void> f = source.fetch(workList, sizing.reads());
        fetch = f;
        f.whenComplete((v, e) -> onLoop.execute(() -> {
            fetch = null;
            if (e != null) {
                workList.requeueInFlight();
                if (!closed) {
                    run.failed(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                }
                return;
            }
            pump();
        }));
    }

    /** Tells peers how many works this node has left when it changed. */
    void advertiseWorks() {
        if (!begun) {
            return;
        }
        int n = workList.remaining().works();
        if (n == advertisedWorks) {
            return;
        }
        advertisedWorks = n;
        for (String p : run.peers()) {
            run.send(p, new WorksLeft(n));
        }
    }

    /** {@code peer} advertised {@code works} left (checked against what it holds by the caller). */
    void worksLeft(String peer, int works) {
        stealing.worksLeft(peer, works);
        pump();
    }

    /** {@code peer} asks for works: half of the unstarted ones if the plan gives any, at most {@code maxWorks}. */
    void giveWorkRequested(String peer, int requestId, int maxWorks) {
        steals.requested(peer, requestId, maxWorks);
        advertiseWorks();
    }

    /**
     * {@code peer} answered a {@code GIVE_WORK_REQUEST}: its works go to the end of the list ({@code have}
     * are pieces stored meanwhile). Returns false, changing nothing, when this node did not ask it that.
     */
    boolean giveWorkAnswered(String peer, int requestId, List<PieceRun> works, IntPredicate have) {
        if (!steals.answered(peer, requestId, works, have)) {
            return false;
        }
        advertiseWorks();
        pump();
        return true;
    }

    /** {@code piece} is stored, from S3 ({@code fromS3}) or from a peer. */
    void pieceStored(int piece, boolean fromS3) {
        steals.pieceStored(piece, fromS3);
        workList.pieceStored(piece);
    }

    /** {@code peer} is gone: it is no victim any more, and a request outstanding to it is abandoned. */
    void peerLeft(String peer) {
        steals.peerLeft(peer);
    }

    /** Orphaned pieces this node is to fetch: appended, advertised and fetched. */
    void take(List<PieceRun> works) {
        if (works.isEmpty()) {
            return;
        }
        workList.append(works);
        advertiseWorks();
        pump();
    }

    /**
     * Phase 1 is over as far as this node knows: its own list is empty and not fetching, it waits for no
     * work, every member is connected and every peer last reported an empty list.
     */
    boolean overEverywhere() {
        return begun && fetch == null && !steals.outstanding() && workList.isEmpty() && run.peersOutOfWork();
    }

    /** Whether this node may request pieces from peers now. */
    boolean phase2Allowed() {
        return plan.phase2Allowed(phase2Started);
    }

    /** Opens phase 2 once phase 1 is over everywhere (the plan decides whether that matters). */
    void checkPhase2Start() {
        if (!phase2Started && overEverywhere()) {
            phase2Started = true;
            LOG.debug("{}: phase 2 starts", self);
            run.phase2Starts();
        }
    }

    /** When phase 1 ended (ticker nanos): the end recorded, else {@code now}, which is then recorded. */
    long phase1End(long now) {
        if (phase1EndNanos < 0) {
            phase1EndNanos = now;
        }
        return phase1EndNanos;
    }

    int piecesStolen() {
        return steals.piecesStolen();
    }

    /** Stops: the fetch in flight is cancelled, nothing more is fetched or asked. */
    void close() {
        closed = true;
        steals.close();
        CompletableFuture<Void> f = fetch;
        if (f != null) {
            f.cancel(true);
        }
    }
}
