package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.Done;
import io.s3broadcast.p2p.protocol.NotInterested;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * After the last piece: the node tells every peer it is done and stays to serve them until each peer is done and
 * no member is still expected to connect, or until the linger time is over, whichever comes first; then the run
 * finishes. On the run's loop only; the linger timer runs on the injected scheduler.
 */
final class Linger {

    private final Map<String, Peer> peers;
    private final ScheduledExecutorService loop;
    private final Duration linger;
    private final BooleanSupplier membersPending;
    private final Runnable finish;
    private boolean completed;
    private ScheduledFuture<?> timer;

    /**
     * @param peers the run's connected peers, by id
     * @param membersPending whether a member is still expected to connect (it would want pieces)
     * @param finish ends the run (idempotent)
     */
    Linger(Map<String, Peer> peers, ScheduledExecutorService loop, Duration linger, BooleanSupplier membersPending,
            Runnable finish) {
        this.peers = peers;
        this.loop = loop;
        this.linger = linger;
        this.membersPending = membersPending;
        this.finish = finish;
    }

    /**
     * This node holds every piece: peers hear {@code NOT_INTERESTED} and {@code DONE}; the linger time starts. The
     * caller calls {@link #check()} once it has reported completion (the run may end there and then).
     */
    void completed() {
        if (completed) {
            return;
        }
        completed = true;
        for (Peer p : peers.values()) {
            p.amInterested = false;
            p.link.write(NotInterested.INSTANCE);
            p.link.write(Done.INSTANCE);
            p.link.flush();
        }
        timer = loop.schedule(finish, linger.toNanos(), TimeUnit.NANOSECONDS);
    }

    boolean isCompleted() {
        return completed;
    }

    /** Whether every connected peer said it is done (true with no peers). */
    private boolean allPeersDone() {
        for (Peer p : peers.values()) {
            if (!p.done) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether nobody waits for this node: every connected peer is done and no member is still expected to connect.
     * While one is, a complete node keeps dialling it too ({@link Dialer}): it may have been down when first dialled.
     */
    boolean nobodyWaits() {
        return allPeersDone() && !membersPending.getAsBoolean();
    }

    /** Ends the run early once complete and nobody waits for this node ({@link #nobodyWaits()}). */
    void check() {
        if (completed && nobodyWaits()) {
            finish.run();
        }
    }

    /** The run is finishing: no timer is left behind. */
    void cancel() {
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
