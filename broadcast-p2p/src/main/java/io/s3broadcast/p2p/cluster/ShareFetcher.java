package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.StealingScheduler;
import io.s3broadcast.spi.cluster.WorkList;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.RangeReads;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Phase 1 of one node: reads its work list from S3, tells peers how many works it has left, steals when the
 * list runs dry and gives works when asked (as its {@link ClusterPlan} says), and opens phase 2 when the plan
 * allows.
 *
 * <p><b>When S3 fails this node.</b> A cluster node's share can be read by its peers, so a node whose S3 reads
 * failed past their retries, or delivered no byte for {@link #S3_STALL_MILLIS} while it had peers, does not fail
 * the run: it <em>gives up S3</em> ({@link #lostS3()}). Its unfinished works go to the cluster: with a plan that
 * gives works they are re-cut into one-piece works (so the count it advertises rises and thieves that were
 * refused ask again) and handed to thieves, half per {@code GIVE_WORK_REQUEST} as usual; what nobody asked for
 * within {@link #GIVE_WORK_TIMEOUT_MILLIS} (and everything, with a plan that gives none) is released: dropped
 * from the list, so that the peers' {@link OrphanRule} shares it out. The node itself never reads S3 again and
 * takes every piece it lacks from peers in phase 2. It fails, naming S3's failure and the pieces missing, when
 * pieces nobody holds or fetches are left and no peer can fetch them (every peer done or gone), or nothing has
 * arrived for {@link #S3_STALL_MILLIS} since such pieces were first seen (the peers lost S3 too). Errors that
 * hold for every node (the object changed or is gone, access denied, the destination unusable: a subclass of
 * {@code BroadcastException}) and any failure on a node without peers still fail the run at once. Every method runs on the run's loop: {@code onLoop} runs the fetch's completion there and
 * {@code timer} the {@code GIVE_WORK_REQUEST} timeout (both the loop in a run, a manual scheduler in tests);
 * nothing here is thread-safe on its own (the {@link WorkList} is, for the S3 connections that poll it).
 */
final class ShareFetcher {

    private static final Logger LOG = LoggerFactory.getLogger(ShareFetcher.class);

    /** A {@code GIVE_WORK_REQUEST} unanswered for this long is given up ({@link WorkStealing}). */
    static final long GIVE_WORK_TIMEOUT_MILLIS = WorkStealing.GIVE_WORK_TIMEOUT_MILLIS;

    /**
     * A cluster node whose S3 fetch has stored nothing for this long, with peers connected, gives up S3 and
     * leaves its share to them (twice the default {@code firstByteTimeout}: a blackholed S3 is noticed after two
     * attempts instead of ten); a node alone keeps the source's own patient retries. The same bound applies to
     * a node that gave up S3 and waits for pieces nobody fetches.
     */
    static final long S3_STALL_MILLIS = 20_000;

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

        /** Whether some connected peer is not done yet: it can still fetch pieces from S3. */
        boolean peersFetching();

        /** The S3 fetch failed and no peer can cover for it: the run fails. */
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
    /** Why this node gave up S3 (S3 failed it, or it leaves the run); null while it reads S3. */
    private Throwable lostS3;
    /** This node leaves the run ({@link #leave}): it hands its works on and takes nothing more. */
    private boolean leaving;
    /** Ticker nanos of the last byte from S3 (written by the S3 connections). */
    private volatile long lastS3Progress;
    private boolean stallWatched;
    /** Ticker nanos of the last {@code GIVE_WORK_REQUEST} since S3 was given up. */
    private long lastAsked;
    /** Ticker nanos since which pieces nobody fetches were seen while S3 is given up; -1 when none. */
    private long strandedSince = -1;

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
        if (lostS3 != null) {
            steals.waiting(false);
            checkPhase2Start();
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
        lastS3Progress = ticker.read();
        CompletableFuture<Void> f = source.fetch(workList, sizing.reads());
        fetch = f;
        watchStall();
        f.whenComplete((v, e) -> onLoop.execute(() -> {
            if (fetch == f) {
                fetch = null;
            }
            if (e != null) {
                workList.requeueInFlight();
                if (closed) {
                    return;
                }
                Throwable cause = lostS3 != null ? lostS3
                        : e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                if (lostS3 != null || (!holdsForEveryNode(cause) && !run.peers().isEmpty())) {
                    giveUpS3(cause);
                } else {
                    run.failed(cause);
                }
                return;
            }
            pump();
        }));
    }

    /** A failure every node would meet (the object changed or is gone, access denied, the destination unusable). */
    private static boolean holdsForEveryNode(Throwable cause) {
        return cause instanceof BroadcastException && cause.getClass() != BroadcastException.class;
    }

    /** Bytes arrived from S3 (any thread): the fetch makes progress. */
    void s3Progress() {
        lastS3Progress = ticker.read();
    }

    /** Checks, every {@link #S3_STALL_MILLIS} at most, that the fetch in flight stores something. */
    private void watchStall() {
        if (stallWatched) {
            return;
        }
        stallWatched = true;
        long limit = TimeUnit.MILLISECONDS.toNanos(S3_STALL_MILLIS);
        long idleNow = ticker.read() - lastS3Progress;
        // Stalled already (a node alone, which keeps waiting): look again a whole period later.
        long wait = idleNow >= limit ? limit : limit - idleNow;
        timer.schedule(() -> {
            stallWatched = false;
            if (closed || lostS3 != null || fetch == null) {
                return;
            }
            long idle = ticker.read() - lastS3Progress;
            if (idle < TimeUnit.MILLISECONDS.toNanos(S3_STALL_MILLIS) || run.peers().isEmpty()) {
                watchStall();
                return;
            }
            BroadcastException why = new BroadcastException("no byte came from S3 for "
                    + TimeUnit.NANOSECONDS.toMillis(idle)
                    + " ms while reading this node's share (S3 unreachable from this node?)");
            // The fetch may have ended already, its completion queued on the loop behind this task: then it
            // goes on as usual. Cancelled, its completion (queued, never run inline) gives up S3 with this cause.
            if (fetch.cancel(true)) {
                lostS3 = why;
            }
        }, wait, TimeUnit.NANOSECONDS);
    }

    /**
     * S3 failed this node (on the loop, nothing in flight): its unfinished works go to the cluster, to thieves
     * when the plan gives works, else (and whatever no thief took in time) to the peers' orphan rule.
     */
    private void giveUpS3(Throwable cause) {
        lostS3 = cause;
        List<PieceRun> rest = workList.releaseAll();
        int pieces = rest.stream().mapToInt(PieceRun::count).sum();
        if (leaving) {
            LOG.info("{}: leaves the run; its {} unfinished pieces go to its peers", self, pieces);
        } else {
            LOG.warn("{}: S3 failed this node ({}); its {} unfinished pieces go to its peers, and it takes what it "
                    + "lacks from them", self, cause.toString(), pieces);
        }
        if (plan.givesWork() && !rest.isEmpty()) {
            List<PieceRun> single = new ArrayList<>(pieces);
            for (PieceRun r : rest) {
                for (int p = r.first(); p < r.end(); p++) {
                    single.add(new PieceRun(p, p + 1));
                }
            }
            workList.append(single);
            lastAsked = ticker.read();
            releaseUnasked();
        }
        advertiseWorks();
        pump();
    }

    /** Releases to the orphan rule the works no thief asked for within {@link #GIVE_WORK_TIMEOUT_MILLIS}. */
    private void releaseUnasked() {
        long timeout = TimeUnit.MILLISECONDS.toNanos(GIVE_WORK_TIMEOUT_MILLIS);
        long wait = Math.max(1, timeout - (ticker.read() - lastAsked));
        timer.schedule(() -> {
            if (closed || workList.isEmpty()) {
                return;
            }
            if (ticker.read() - lastAsked < timeout) {
                releaseUnasked();
                return;
            }
            List<PieceRun> left = workList.releaseAll();
            LOG.info("{}: no peer asked for {} works this node cannot read; released to the orphan rule", self,
                    left.size());
            advertiseWorks();
            pump();
        }, wait, TimeUnit.NANOSECONDS);
    }

    /** Whether this node gave up S3 and takes everything from peers. */
    boolean lostS3() {
        return lostS3 != null;
    }

    /**
     * This node leaves the run (its fetch was cancelled, its {@code Broadcast} closed): it stops reading S3 and
     * hands its unfinished works to its peers the way a node that S3 failed does ({@link #giveUpS3}): re-cut into
     * one-piece works for thieves when the plan gives works, and what no thief took within {@code graceMillis}
     * (everything, with a plan that gives none) released with {@code WORKS_LEFT(0)} to the peers' orphan rule.
     * Orphans are no longer taken. {@link #handedOff()} tells when nothing is left to hand on.
     */
    void leave(long graceMillis) {
        if (!begun || closed || leaving) {
            return;
        }
        leaving = true;
        CompletableFuture<Void> f = fetch;
        if (lostS3 == null) {
            BroadcastException why = new BroadcastException("this node leaves the run");
            if (f != null) {
                // Its completion (queued on the loop, never run inline) puts what was in flight back and gives up S3.
                lostS3 = why;
                f.cancel(true);
            } else {
                giveUpS3(why);
            }
        }
        timer.schedule(() -> {
            if (closed || workList.isEmpty()) {
                return;
            }
            List<PieceRun> left = workList.releaseAll();
            LOG.info("{}: leaving; no peer asked for {} works within {} ms: released to the orphan rule", self,
                    left.size(), graceMillis);
            advertiseWorks();
        }, graceMillis, TimeUnit.MILLISECONDS);
    }

    /** Whether this node leaves the run ({@link #leave}). */
    boolean leaving() {
        return leaving;
    }

    /** Leaving, nothing is left to hand on: no fetch in flight and the work list empty (given or released). */
    boolean handedOff() {
        return leaving && fetch == null && workList.isEmpty();
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
        if (works > 0) {
            strandedSince = -1;
        }
        stealing.worksLeft(peer, works);
        pump();
    }

    /** {@code peer} asks for works: half of the unstarted ones if the plan gives any, at most {@code maxWorks}. */
    void giveWorkRequested(String peer, int requestId, int maxWorks) {
        lastAsked = ticker.read();
        steals.requested(peer, requestId, maxWorks);
        advertiseWorks();
        checkPhase2Start();
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
        if (fromS3) {
            lastS3Progress = ticker.read();
        }
        strandedSince = -1;
        steals.pieceStored(piece, fromS3);
        workList.pieceStored(piece);
    }

    /** {@code peer} is gone: it is no victim any more, and a request outstanding to it is abandoned. */
    void peerLeft(String peer) {
        steals.peerLeft(peer);
    }

    /** Orphaned pieces this node is to fetch: appended, advertised and fetched. */
    void take(List<PieceRun> works) {
        if (works.isEmpty() || leaving) {
            return;
        }
        if (lostS3 != null) {
            stranded(works);
            return;
        }
        workList.append(works);
        advertiseWorks();
        pump();
    }

    /**
     * Orphans came to a node that gave up S3: pieces nobody holds or fetches. It fails when no peer can fetch
     * them (every peer done or gone) or when nothing has arrived for {@link #S3_STALL_MILLIS} since they were
     * first seen; else a peer's own orphan rule takes them.
     */
    private void stranded(List<PieceRun> works) {
        long now = ticker.read();
        if (strandedSince < 0) {
            strandedSince = now;
        }
        boolean nobody = !run.peersFetching();
        if (!nobody && now - strandedSince < TimeUnit.MILLISECONDS.toNanos(S3_STALL_MILLIS)) {
            return;
        }
        int pieces = works.stream().mapToInt(PieceRun::count).sum();
        run.failed(new BroadcastException("S3 failed this node (" + lostS3.getMessage() + ") and " + pieces
                + " pieces it lacks (" + describe(works) + ") are held by no connected peer, and "
                + (nobody ? "no peer is left to fetch them" : "no peer fetched them for "
                        + TimeUnit.NANOSECONDS.toMillis(now - strandedSince) + " ms")
                + "; check this node's access to S3 (network, endpoint, credentials) and fetch again", lostS3));
    }

    private static String describe(List<PieceRun> works) {
        StringBuilder b = new StringBuilder("pieces ");
        for (int i = 0; i < works.size() && i < 8; i++) {
            b.append(i == 0 ? "" : ", ").append('[').append(works.get(i).first()).append(", ")
                    .append(works.get(i).end()).append(')');
        }
        return works.size() > 8 ? b.append(", ...").toString() : b.toString();
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
