package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.WorkList;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a node that stops reading S3 hands its share to the cluster: S3 failed it ({@link ShareFetcher} says when),
 * or it leaves the run. Its unfinished works are re-cut into one-piece works when the plan gives works (so the
 * count it advertises rises and refused thieves ask again) and handed to thieves as usual; what no thief asked
 * for within {@link WorkStealing#GIVE_WORK_TIMEOUT_MILLIS} (a leaving node: within its grace), and everything
 * with a plan that gives none, is released: dropped from the list, so that the peers' {@link OrphanRule} shares
 * it out. Orphans that then come back to this node are {@linkplain #stranded stranded}: it fails when no peer can
 * fetch them, or none did for {@link S3StallWatch#STALL_MILLIS}. On the run's loop; timers on the injected
 * {@code timer}, time from the injected ticker.
 */
final class ShareHandOff {

    private static final Logger LOG = LoggerFactory.getLogger(ShareHandOff.class);

    private final String self;
    private final ClusterPlan plan;
    private final WorkList workList;
    private final PhaseOneRun run;
    private final ScheduledExecutorService timer;
    private final Ticker ticker;
    /** Tells peers the works left and keeps phase 1 going: called when the list changed. */
    private final Runnable changed;
    /** Tells peers the works left only. */
    private final Runnable advertise;
    /** Why this node gave up S3 (S3 failed it, or it leaves the run); null while it reads S3. */
    private Throwable lostS3;
    private boolean leaving;
    private boolean closed;
    /** Ticker nanos of the last {@code GIVE_WORK_REQUEST} since S3 was given up. */
    private long lastAsked;
    /** Ticker nanos since which pieces nobody fetches were seen while S3 is given up; -1 when none. */
    private long strandedSince = -1;

    ShareHandOff(String self, ClusterPlan plan, WorkList workList, PhaseOneRun run,
            ScheduledExecutorService timer, Ticker ticker, Runnable changed, Runnable advertise) {
        this.self = self;
        this.plan = plan;
        this.workList = workList;
        this.run = run;
        this.timer = timer;
        this.ticker = ticker;
        this.changed = changed;
        this.advertise = advertise;
    }

    /** Why this node gave up S3, or null while it reads S3. */
    Throwable lostS3() {
        return lostS3;
    }

    /** S3 is lost for {@code why}; the fetch is cancelled, and its completion calls {@link #giveUpS3}. */
    void lost(Throwable why) {
        lostS3 = why;
    }

    boolean leaving() {
        return leaving;
    }

    /**
     * This node leaves: it gives up S3 (at once, or through {@code fetch}'s completion when one is in flight) and
     * releases what no thief took within {@code graceMillis} with {@code WORKS_LEFT(0)}.
     */
    void leave(long graceMillis, Future<?> fetch) {
        leaving = true;
        if (lostS3 == null) {
            BroadcastException why = new BroadcastException("this node leaves the run");
            if (fetch != null) {
                // Its completion (queued on the loop, never run inline) puts what was in flight back and gives up S3.
                lostS3 = why;
                fetch.cancel(true);
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
            advertise.run();
        }, graceMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * S3 failed this node, or it leaves (on the loop, nothing in flight): its unfinished works go to the cluster,
     * to thieves when the plan gives works, else (and whatever no thief took in time) to the peers' orphan rule.
     */
    void giveUpS3(Throwable cause) {
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
        changed.run();
    }

    /** Releases to the orphan rule the works no thief asked for within the give-work timeout. */
    private void releaseUnasked() {
        long timeout = TimeUnit.MILLISECONDS.toNanos(WorkStealing.GIVE_WORK_TIMEOUT_MILLIS);
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
            changed.run();
        }, wait, TimeUnit.NANOSECONDS);
    }

    /** A thief asked for works. */
    void asked() {
        lastAsked = ticker.read();
    }

    /** A piece arrived, or a peer has works left: pieces are on their way again. */
    void progress() {
        strandedSince = -1;
    }

    /**
     * Whether this node, having stopped reading S3, does not take the {@code orphans} its orphan rule gives it: a
     * leaving node drops them, one that S3 failed finds them {@linkplain #stranded stranded}. False while it reads
     * S3 (it then fetches them).
     */
    boolean refused(List<PieceRun> orphans) {
        if (leaving) {
            return true;
        }
        if (lostS3 != null) {
            stranded(orphans);
            return true;
        }
        return false;
    }

    /**
     * Orphans came to a node that gave up S3: pieces nobody holds or fetches. It fails when no peer can fetch
     * them (every peer done or gone) or when nothing has arrived for {@link S3StallWatch#STALL_MILLIS} since
     * they were first seen; else a peer's own orphan rule takes them.
     */
    private void stranded(List<PieceRun> works) {
        long now = ticker.read();
        if (strandedSince < 0) {
            strandedSince = now;
        }
        boolean nobody = !run.peersFetching();
        if (!nobody && now - strandedSince < TimeUnit.MILLISECONDS.toNanos(S3StallWatch.STALL_MILLIS)) {
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

    void close() {
        closed = true;
    }
}
