package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.StealingScheduler;
import io.s3broadcast.spi.cluster.WorkList;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceRun;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.IntPredicate;

/**
 * Phase 1 of one node: reads its work list from S3, tells peers how many works it has left, steals when the
 * list runs dry and gives works when asked (as its {@link ClusterPlan} says), and opens phase 2 when the plan
 * allows.
 *
 * <p><b>When S3 fails this node.</b> A cluster node's share can be read by its peers, so a node whose S3 reads failed
 * past their retries, or delivered no byte for {@link S3StallWatch#STALL_MILLIS} while it had peers ({@link
 * S3StallWatch}), does not fail the run: it <em>gives up S3</em> ({@link #lostS3()}) and its unfinished works go to the
 * cluster ({@link ShareHandOff}, which a node that leaves the run uses too); it never reads S3 again and takes every
 * piece it lacks from peers in phase 2. Errors that hold for every node (the object changed or is gone, access denied,
 * the destination unusable: a subclass of {@code BroadcastException}) and any failure on a node without peers still
 * fail the run at once. Every method runs on the run's loop: {@code onLoop} runs the fetch's completion there and
 * {@code timer} the timeouts (both the loop in a run, a manual scheduler in tests); nothing here is thread-safe on its
 * own (the {@link WorkList} is, for the S3 connections that poll it).
 */
final class ShareFetcher {

    private final Ticker ticker;
    private final WorkList workList;
    private final ShareRead read;
    private final ShareHandOff handOff;
    private final WorkStealing steals;
    private WorkSizing.Sizing sizing;
    private boolean begun;
    private boolean closed;
    private final PhaseGate gate;
    private final WorksLeftAdvert advert;
    private final NarrowStart narrowStart;
    /** Peers the overlay start waits for (0: none, or it ended). */
    private int overlayPeers;

    ShareFetcher(String self, ClusterPlan plan, int pieceCount, Random random, PhaseOneRun run, ShareRead.Source source,
            Executor onLoop, ScheduledExecutorService timer, Ticker ticker) {
        this.ticker = ticker;
        this.workList = new WorkList(pieceCount, List.of());
        this.advert = new WorksLeftAdvert(workList, run);
        this.narrowStart = new NarrowStart(workList, timer, this::pump);
        this.steals = new WorkStealing(self, plan, plan.scheduler(random), workList, pieceCount, run, timer,
                this::pump);
        this.handOff = new ShareHandOff(self, plan, workList, run, timer, ticker, () -> {
            advertiseWorks();
            pump();
        }, this::advertiseWorks);
        this.read = new ShareRead(source, workList, handOff, run, onLoop, timer, ticker, this::pump);
        this.gate = new PhaseGate(self, plan, () -> begun && !read.inFlight() && !steals.outstanding()
                && workList.isEmpty(), run);
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
        begin(share, sizing, have, false, 0);
    }

    /**
     * As {@link #begin(List, WorkSizing.Sizing, Bitfield)}, starting narrow ({@link NarrowStart}): with {@code alone}
     * (this node's share is rendezvous units and it knows no other member yet) it reads through one connection until
     * it learns of one ({@link #notAlone()}) or {@link NarrowStart#ALONE_GRACE_MILLIS} passed; else, with {@code
     * overlayPeers} &gt; 0, until it is connected to that many peers ({@link #peersConnected}) or {@link
     * NarrowStart#OVERLAY_GRACE_MILLIS} passed, so the overlay forms on a link its reads do not fill.
     */
    void begin(List<PieceRun> share, WorkSizing.Sizing sizing, Bitfield have, boolean alone, int overlayPeers) {
        this.sizing = sizing;
        if (!share.isEmpty()) {
            if (alone) {
                narrowStart.begin(NarrowStart.ALONE_GRACE_MILLIS);
            } else if (overlayPeers > 0) {
                this.overlayPeers = overlayPeers;
                narrowStart.begin(NarrowStart.OVERLAY_GRACE_MILLIS);
            }
        }
        workList.append(share);
        for (int p = have.nextSet(0); p >= 0; p = have.nextSet(p + 1)) {
            workList.pieceStored(p);
        }
        begun = true;
        advertiseWorks();
        pump();
    }

    /** This node is connected to {@code peers} peers now: an overlay start ends once they are all it waits for. */
    void peersConnected(int peers) {
        if (overlayPeers > 0 && peers >= overlayPeers) {
            overlayPeers = 0;
            narrowStart.end();
        }
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
        return advert.worksLeft();
    }

    /** Keeps the S3 fetch going and steals when the own list runs dry. */
    void pump() {
        if (!begun || closed) {
            return;
        }
        if (handOff.lostS3() != null) {
            steals.waiting(false);
            checkPhase2Start();
            return;
        }
        StealingScheduler.Action next = steals.next(workList.remaining());
        if (next == StealingScheduler.Action.FETCH) {
            narrowStart.start(read::start, sizing.reads());
        } else if (next == StealingScheduler.Action.DONE && !read.inFlight() && workList.isEmpty()) {
            gate.ownPhase1Done(ticker.read());
        }
        checkPhase2Start();
    }

    /** Bytes arrived from S3 (any thread): the fetch makes progress. */
    void s3Progress() {
        read.progress();
    }

    /**
     * This node knows another member now: a node that began alone reads with its sized reads ({@link NarrowStart});
     * so does one that was waiting for its overlay (a member that joined late is not waited for).
     */
    void notAlone() {
        overlayPeers = 0;
        narrowStart.end();
    }

    /** Whether this node reads through one connection: it knows no other member yet, or its overlay is forming. */
    boolean readsNarrow() {
        return narrowStart.active();
    }

    /** Whether this node gave up S3 and takes everything from peers. */
    boolean lostS3() {
        return handOff.lostS3() != null;
    }

    /**
     * This node leaves the run (its fetch was cancelled, its {@code Broadcast} closed): it stops reading S3 and
     * hands its unfinished works to its peers the way a node that S3 failed does ({@link ShareHandOff}): re-cut into
     * one-piece works for thieves when the plan gives works, and what no thief took within {@code graceMillis}
     * (everything, with a plan that gives none) released with {@code WORKS_LEFT(0)} to the peers' orphan rule.
     * Orphans are no longer taken. {@link #handedOff()} tells when nothing is left to hand on.
     */
    void leave(long graceMillis) {
        if (!begun || closed || handOff.leaving()) {
            return;
        }
        handOff.leave(graceMillis, read.current());
    }

    /** Whether this node leaves the run ({@link #leave}). */
    boolean leaving() {
        return handOff.leaving();
    }

    /** Leaving, nothing is left to hand on: no fetch in flight and the work list empty (given or released). */
    boolean handedOff() {
        return handOff.leaving() && !read.inFlight() && workList.isEmpty();
    }

    /** Tells peers how many works this node has left when it changed, once phase 1 began ({@link WorksLeftAdvert}). */
    void advertiseWorks() {
        if (begun) {
            advert.advertise();
        }
    }

    /** {@code peer} advertised {@code works} left (checked against what it holds by the caller). */
    void worksLeft(String peer, int works) {
        if (works > 0) {
            handOff.progress();
        }
        steals.worksLeft(peer, works);
        pump();
    }

    /** {@code peer} asks for works: half of the unstarted ones if the plan gives any, at most {@code maxWorks}. */
    void giveWorkRequested(String peer, int requestId, int maxWorks) {
        handOff.asked();
        steals.requested(peer, requestId, maxWorks);
        advertiseWorks();
        checkPhase2Start();
    }

    /** {@code peer} answered a {@code GIVE_WORK_REQUEST}: false if not asked ({@link WorkStealing#answered}). */
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
            read.progress();
        }
        handOff.progress();
        steals.pieceStored(piece, fromS3);
        workList.pieceStored(piece);
    }

    /** {@code peer} is gone: it is no victim any more, and a request outstanding to it is abandoned. */
    void peerLeft(String peer) {
        steals.peerLeft(peer);
    }

    /**
     * Orphaned pieces this node is to fetch: appended, advertised and fetched, unless it stopped reading S3
     * ({@link ShareHandOff#refused}).
     */
    void take(List<PieceRun> works) {
        if (works.isEmpty() || handOff.refused(works)) {
            return;
        }
        workList.append(works);
        advertiseWorks();
        pump();
    }

    /** Phase 1 is over as far as this node knows ({@link PhaseGate}). */
    boolean overEverywhere() {
        return gate.overEverywhere();
    }

    /** Whether this node may request pieces from peers now. */
    boolean phase2Allowed() {
        return gate.phase2Allowed();
    }

    /** Opens phase 2 once phase 1 is over everywhere (the plan decides whether that matters). */
    void checkPhase2Start() {
        gate.check();
    }

    /** When phase 1 ended (ticker nanos): the end recorded, else {@code now}, which is then recorded. */
    long phase1End(long now) {
        return gate.phase1End(now);
    }

    int piecesStolen() {
        return steals.piecesStolen();
    }

    /** Stops: the fetch in flight is cancelled, nothing more is fetched or asked. */
    void close() {
        closed = true;
        narrowStart.close();
        steals.close();
        handOff.close();
        read.close();
    }
}
