package io.s3broadcast.p2p.cluster;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The run's tick, every {@value #PERIOD_MILLIS} ms on its loop: what is checked again as time passes rather than on
 * an event. A closing run checks nothing; a leaving one only whether it may go ({@link Leaving}); otherwise members
 * that never connected expire ({@link Membership}) and the overlay fills up ({@link Dialer}); then a complete node
 * checks whether its linger is over ({@link Linger}), and a node still fetching opens phase 2 when due ({@link
 * PhaseGate}), expires unanswered requests ({@link PieceExchange}) and applies the orphan rule ({@link OrphanRule}).
 */
final class Housekeeping {

    static final long PERIOD_MILLIS = 100;

    /** The run's state and checks the tick reads and calls. */
    interface Run {
        boolean closing();

        boolean leaving();

        boolean isComplete();

        /** Leaving: goes if it may. */
        void checkLeft();

        /** Complete: ends the linger if every peer is done or it lasted long enough. */
        void checkLingerEnd();
    }

    /** The components' checks the tick calls ({@link RunParts} in a run). */
    interface Checks {
        /** {@link Membership#expirePending}. */
        void expireMembers();

        /** {@link Dialer#fill}. */
        void fillOverlay();

        /** {@link ShareFetcher#checkPhase2Start}. */
        void checkPhase2Start();

        /** {@link PieceExchange#expireRequests}. */
        void expireRequests();

        /** {@link OrphanRule#check}. */
        void checkOrphans();
    }

    private final ScheduledExecutorService loop;
    private final Run run;
    private final Checks c;
    private ScheduledFuture<?> timer;

    Housekeeping(ScheduledExecutorService loop, Run run, Checks checks) {
        this.loop = loop;
        this.run = run;
        this.c = checks;
    }

    void start() {
        timer = loop.scheduleAtFixedRate(this::tick, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    private void tick() {
        if (run.closing()) {
            return;
        }
        if (run.leaving()) {
            run.checkLeft();
            return;
        }
        c.expireMembers();
        c.fillOverlay();
        if (run.isComplete()) {
            run.checkLingerEnd();
            return;
        }
        c.checkPhase2Start();
        c.expireRequests();
        c.checkOrphans();
    }
}
