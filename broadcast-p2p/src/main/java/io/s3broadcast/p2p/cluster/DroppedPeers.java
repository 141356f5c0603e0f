package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.spi.Bitfield;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Peers whose connection ended while they were alive and still members, for being slow rather than lying: this node
 * dropped one that left its requests unanswered ({@link PieceExchange}), or one dropped this node for that reason
 * ({@code GOODBYE(MISBEHAVIOUR)}). For a grace after the drop, the pieces such a peer held still count as on their way
 * for the orphan rule ({@link OrphanRule}): its other peers are still connected to it and pass them on. Without it, the
 * pieces only the dropped peer held among this node's peers (24-39 of them at N = 16 and 1 GiB, read from S3 at once)
 * were read again by both ends of each drop, 1.02-1.09 times the object in all (docs/results.md, session 36). After
 * the grace, a piece nobody else holds yet is an orphan as before. The grace is the peer's rest after this drop
 * ({@link RestingPeers}, doubling with each drop) plus {@link #RECONNECT_NANOS}, the time until it can be connected
 * again and counted as a holder once more; a grace of the first rest alone fell short of second rests and read their
 * pieces from S3 (session 38). The rest counted is at most {@code maxRestNanos} (the second rest): a peer that claims
 * pieces and never sends them is back as a holder after each rest, so a grace that always covered the rest would
 * keep what only it claims from the orphan rule for as long as it keeps coming back. From its third drop its pieces
 * are orphans for the rest of that rest. Honest peers are rarely dropped a third time (3 of 89 drops in a run at
 * 2.5 MB/s in session 38, 2 of 36 in session 39). On the run's loop only; time is the injected ticker's.
 */
final class DroppedPeers {

    /**
     * Beyond a dropped peer's rest ({@link RestingPeers}), the time it takes to be connected again and send its
     * bitfield, which counts it as a holder once more: the grace is the rest plus this (the dialer looks every
     * housekeeping tick; at N = 16 on two shared cores a connection took up to 6 s at the start).
     */
    static final long RECONNECT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private record Dropped(Bitfield held, long until) {
    }

    private final Ticker ticker;
    private final long maxRestNanos;
    private final Predicate<String> member;
    private final Map<String, Dropped> dropped = new HashMap<>();

    /**
     * @param maxRestNanos the longest rest a grace covers
     * @param member whether a peer is still a member (a peer that left the group holds nothing on its way)
     */
    DroppedPeers(Ticker ticker, long maxRestNanos, Predicate<String> member) {
        this.ticker = ticker;
        this.maxRestNanos = maxRestNanos;
        this.member = member;
    }

    /**
     * {@code peer}'s connection ended for being slow, holding {@code held} (copied), and the peer rests for
     * {@code restNanos}: what it held counts for that (at most {@code maxRestNanos}) plus {@link #RECONNECT_NANOS}.
     */
    void dropped(String peer, Bitfield held, long restNanos) {
        long grace = Math.min(restNanos, maxRestNanos) + RECONNECT_NANOS;
        dropped.put(peer, new Dropped(held.copy(), ticker.read() + grace));
    }

    /** Whether a peer dropped less than its grace ago, and still a member, holds {@code piece}. */
    boolean holds(int piece) {
        if (dropped.isEmpty()) {
            return false;
        }
        long now = ticker.read();
        for (Iterator<Map.Entry<String, Dropped>> it = dropped.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Dropped> e = it.next();
            if (now - e.getValue().until() >= 0 || !member.test(e.getKey())) {
                it.remove();
            } else if (e.getValue().held().get(piece)) {
                return true;
            }
        }
        return false;
    }
}
