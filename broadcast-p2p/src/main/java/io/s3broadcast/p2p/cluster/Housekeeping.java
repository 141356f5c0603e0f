package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run's tick, every {@value #PERIOD_MILLIS} ms on its loop: what is checked again as time passes rather than on
 * an event. A closing run checks nothing; a leaving one only whether it may go ({@link Leaving}); otherwise members
 * that never connected expire ({@link Membership}), the overlay fills up ({@link Dialer}) and the uploads are paced
 * or not ({@link CatchUp}); then a complete node checks whether its linger is over ({@link Linger}), and a node still
 * fetching opens phase 2 when due ({@link PhaseGate}), expires unanswered requests ({@link PieceExchange}), says
 * why phase 2 stands still if it does ({@link ExchangeStillReport}) and applies the orphan rule ({@link OrphanRule}).
 * A tick that comes {@link #STALL_NANOS} or more after the one before (of the injected ticker's time) means the
 * loop did not run meanwhile (a GC pause, a starved process): the checks hear how long first ({@link
 * Checks#loopStalled}), before anything that arrived meanwhile has been handled. A check that throws fails the run
 * (a periodic task that throws is not run again: the run would go on with none of these checks).
 */
final class Housekeeping {

    private static final Logger LOG = LoggerFactory.getLogger(Housekeeping.class);
    static final long PERIOD_MILLIS = 100;
    /** A gap between two ticks this long or longer is a stall of the loop: five periods. */
    static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(5 * PERIOD_MILLIS);

    /** The run's state and checks the tick reads and calls. */
    interface Run {
        boolean closing();

        boolean leaving();

        boolean isComplete();

        /** Leaving: goes if it may. */
        void checkLeft();

        /** Complete: ends the linger if every peer is done or it lasted long enough. */
        void checkLingerEnd();

        /** A check threw {@code error}: the run fails. */
        void fail(Throwable error);
    }

    /** The components' checks the tick calls ({@link RunParts} in a run). */
    interface Checks {
        /** {@link Membership#expirePending}. */
        void expireMembers();

        /** {@link Dialer#fill}, and {@link Dialer#reachOut} while {@link Stranded}. */
        void fillOverlay();

        /** {@link ShareFetcher#checkPhase2Start}. */
        void checkPhase2Start();

        /** {@link PieceExchange#expireRequests}, and {@link ExchangeStillReport#check}. */
        void expireRequests();

        /** {@link OrphanRule#check}. */
        void checkOrphans();

        /** {@link CatchUp#tick}. */
        void paceUploads();

        /** The loop did not run for {@code nanos} beyond a tick's period ({@link OrphanRule#loopStalled}). */
        void loopStalled(long nanos);
    }

    private final ScheduledExecutorService loop;
    private final Ticker ticker;
    private final Run run;
    private final Checks c;
    private ScheduledFuture<?> timer;
    private long lastTick = -1;

    Housekeeping(ScheduledExecutorService loop, Ticker ticker, Run run, Checks checks) {
        this.loop = loop;
        this.ticker = ticker;
        this.run = run;
        this.c = checks;
    }

    void start() {
        timer = loop.scheduleAtFixedRate(this::guardedTick, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void guardedTick() {
        try {
            tick();
        } catch (RuntimeException | Error e) {
            LOG.error("a check of the run's tick failed", e);
            stop();
            run.fail(e);
        }
    }

    void stop() {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    private void tick() {
        long now = ticker.read();
        long gap = lastTick < 0 ? 0 : now - lastTick;
        lastTick = now;
        if (gap >= STALL_NANOS) {
            c.loopStalled(gap - TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS));
        }
        if (run.closing()) {
            return;
        }
        if (run.leaving()) {
            run.checkLeft();
            return;
        }
        c.expireMembers();
        c.fillOverlay();
        c.paceUploads();
        if (run.isComplete()) {
            run.checkLingerEnd();
            return;
        }
        c.checkPhase2Start();
        c.expireRequests();
        c.checkOrphans();
    }
}
