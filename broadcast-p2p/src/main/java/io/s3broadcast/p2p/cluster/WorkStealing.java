package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.StealingScheduler;
import io.s3broadcast.spi.cluster.WorkList;
import io.s3broadcast.p2p.protocol.GiveWorkRequest;
import io.s3broadcast.p2p.protocol.GiveWorkResponse;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceRun;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stealing in phase 1 (paper 000), both sides: a node whose list ran dry asks the victim its {@link
 * StealingScheduler} picks for works ({@code GIVE_WORK_REQUEST}) and counts it as having refused when no answer
 * comes within {@link #GIVE_WORK_TIMEOUT_MILLIS}; the works that come (late answers too) go to the end of its
 * {@link WorkList}. A node asked gives half of its unstarted works if its plan gives any. Pieces read from S3
 * that were in taken works are counted. On the run's loop only; the timeout runs on the injected scheduler.
 */
final class WorkStealing {

    private static final Logger LOG = LoggerFactory.getLogger(WorkStealing.class);

    /** A {@code GIVE_WORK_REQUEST} unanswered for this long is given up; the victim counts as having refused. */
    static final long GIVE_WORK_TIMEOUT_MILLIS = 10_000;

    private final String self;
    private final ClusterPlan plan;
    private final PhaseOneRun run;
    private final ScheduledExecutorService timer;
    private final WorkList workList;
    private final StealingScheduler stealing;
    private final Runnable changed;
    /** Pieces of works this node took from others and still holds (works it gave on are cleared). */
    private final Bitfield inStolenWorks;
    /** Ids of our {@code GIVE_WORK_REQUEST}s to each peer without an answer (late answers are still welcome). */
    private final Map<String, Set<Integer>> sent = new HashMap<>();
    private boolean outstanding;
    private boolean closed;
    private int piecesStolen;

    /** @param changed told when works came or a request was given up: the fetch goes on, the count is advertised */
    WorkStealing(String self, ClusterPlan plan, StealingScheduler stealing, WorkList workList, int pieceCount,
            PhaseOneRun run, ScheduledExecutorService timer, Runnable changed) {
        this.self = self;
        this.plan = plan;
        this.stealing = stealing;
        this.workList = workList;
        this.inStolenWorks = new Bitfield(pieceCount);
        this.run = run;
        this.timer = timer;
        this.changed = changed;
    }

    /** Whether this node waits for works: a request is out, or the scheduler waits for one. */
    boolean outstanding() {
        return outstanding;
    }

    /** The scheduler waits ({@code true}) or has nothing to wait for. */
    void waiting(boolean waiting) {
        outstanding = waiting;
    }

    /**
     * What phase 1 does next with {@code own} left of its list ({@link StealingScheduler#next}), its stealing part
     * done here: a {@code STEAL} asks the victim, a {@code WAIT} is noted; on {@code FETCH} and {@code DONE} this
     * node waits for no works, and the caller fetches or finishes.
     */
    StealingScheduler.Action next(WorkList.Remaining own) {
        StealingScheduler.Step step = stealing.next(own);
        switch (step.action()) {
            case STEAL -> steal(step.victim(), step.requestId());
            case WAIT -> waiting(true);
            case FETCH, DONE -> waiting(false);
        }
        return step.action();
    }

    /** Asks {@code victim} for works. */
    private void steal(String victim, int requestId) {
        if (!run.send(victim, new GiveWorkRequest(requestId))) {
            stealing.answered(victim, requestId, 0);
            outstanding = false;
            return;
        }
        outstanding = true;
        LOG.debug("{}: asked {} for works (giveWork {})", self, victim, requestId);
        sent.computeIfAbsent(victim, k -> new HashSet<>()).add(requestId);
        timer.schedule(() -> {
            if (!closed && stealing.answered(victim, requestId, 0)) {
                LOG.info("{}: {} did not answer giveWork {} in time", self, victim, requestId);
                outstanding = false;
                changed.run();
            }
        }, GIVE_WORK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** {@code peer} asks for works: half of the unstarted ones if the plan gives any, at most {@code maxWorks}. */
    void requested(String peer, int requestId, int maxWorks) {
        List<PieceRun> given = plan.givesWork() ? workList.giveAway(maxWorks) : List.of();
        for (PieceRun r : given) {
            for (int i = r.first(); i < r.end(); i++) {
                inStolenWorks.clear(i);
            }
        }
        run.send(peer, new GiveWorkResponse(requestId, given));
        if (!given.isEmpty()) {
            LOG.debug("{}: gave {} works to {}: {}", self, given.size(), peer, given);
        }
    }

    /**
     * {@code peer} answered: its works go to the end of the list ({@code have}: pieces stored meanwhile). Returns
     * false, changing nothing, when this node did not ask it that.
     */
    boolean answered(String peer, int requestId, List<PieceRun> works, IntPredicate have) {
        Set<Integer> ids = sent.get(peer);
        if (ids == null || !ids.remove(requestId)) {
            return false;
        }
        LOG.debug("{}: {} gave {} works: {}", self, peer, works.size(), works);
        workList.append(works);
        for (PieceRun r : works) {
            inStolenWorks.setRange(r.first(), r.end());
            for (int i = r.first(); i < r.end(); i++) {
                if (have.test(i)) {
                    workList.pieceStored(i);
                }
            }
        }
        if (stealing.answered(peer, requestId, works.size())) {
            outstanding = false;
        }
        return true;
    }

    /** {@code piece} is stored, from S3 ({@code fromS3}) or from a peer. */
    void pieceStored(int piece, boolean fromS3) {
        if (fromS3 && inStolenWorks.get(piece)) {
            piecesStolen++;
        }
    }

    /** {@code peer} advertised {@code works} left: the victims the scheduler draws from. */
    void worksLeft(String peer, int works) {
        stealing.worksLeft(peer, works);
    }

    /** {@code peer} is gone: it is no victim any more, and a request outstanding to it is abandoned. */
    void peerLeft(String peer) {
        stealing.peerLeft(peer);
        sent.remove(peer);
        outstanding = false;
    }

    /** The run stops: a request's timeout does nothing more. */
    void close() {
        closed = true;
    }

    /** Pieces fetched from S3 that were in works taken from other nodes. */
    int piecesStolen() {
        return piecesStolen;
    }
}
