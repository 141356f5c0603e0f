package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.cluster.ClusterPlan;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When phase 1 is over and phase 2 opens. Phase 1 is over as far as this node knows when its own part is done (its
 * list empty and not fetching, no work awaited: {@code ownDone}) and every peer last reported an empty list (in a
 * full mesh also every member is connected; in a bounded overlay members not connected are not waited for: {@link
 * PhaseOneRun#peersOutOfWork}); then phase 2 starts, and the {@link
 * ClusterPlan} says whether requests to peers had to wait for that ({@link #phase2Allowed}). It also keeps when
 * this node's phase 1 ended, for the outcome. On the run's loop only.
 */
final class PhaseGate {

    private static final Logger LOG = LoggerFactory.getLogger(PhaseGate.class);

    private final String self;
    private final ClusterPlan plan;
    private final BooleanSupplier ownDone;
    private final PhaseOneRun run;
    private boolean phase2Started;
    private long phase1EndNanos = -1;

    PhaseGate(String self, ClusterPlan plan, BooleanSupplier ownDone, PhaseOneRun run) {
        this.self = self;
        this.plan = plan;
        this.ownDone = ownDone;
        this.run = run;
    }

    /** Phase 1 is over as far as this node knows: its own part and every peer's. */
    boolean overEverywhere() {
        return ownDone.getAsBoolean() && run.peersOutOfWork();
    }

    /** Whether this node may request pieces from peers now. */
    boolean phase2Allowed() {
        return plan.phase2Allowed(phase2Started);
    }

    /** Opens phase 2 once phase 1 is over everywhere (the plan decides whether that matters). */
    void check() {
        if (!phase2Started && overEverywhere()) {
            phase2Started = true;
            LOG.debug("{}: phase 2 starts", self);
            run.phase2Starts();
        }
    }

    /** This node's own phase 1 is done at {@code now} (ticker nanos); only the first time counts. */
    void ownPhase1Done(long now) {
        if (phase1EndNanos < 0) {
            phase1EndNanos = now;
            LOG.debug("{}: phase 1 done", self);
        }
    }

    /** When phase 1 ended (ticker nanos): the end recorded, else {@code now}, which is then recorded. */
    long phase1End(long now) {
        if (phase1EndNanos < 0) {
            phase1EndNanos = now;
        }
        return phase1EndNanos;
    }
}
