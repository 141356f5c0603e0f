package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.p2p.protocol.Goodbye;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Peers this node does not connect to for a while: one it dropped for leaving piece requests unanswered
 * ({@link PieceExchange}), or one that dropped this node so ({@code GOODBYE(MISBEHAVIOUR)}). Slow is not lying: on a
 * congested upload an honest peer's answers can take longer than the request timeout, and a ban for that took a
 * connection out of the mesh for the rest of the run (1 to 34 of the 120 connections of N = 16 at 5 MB/s, the run
 * 1.14 T* with 34; at 2.5 MB/s 20 to 83, and the orphan rule read S3 1.35-1.56 times: docs/results.md, session 38). So
 * such a peer rests until the rest is over; then the overlay takes it back:
 * <ul>
 *   <li>a peer this node dropped ({@link #rest}) is not dialled, and is refused when it dials
 *       ({@code TOO_MANY_CONNECTIONS});</li>
 *   <li>a peer that dropped this node ({@link #droppedBy}) is not dialled either, but its own dial is taken. Its rest
 *       started first, when it sent the {@code GOODBYE}, which reaches this node seconds later on a congested link;
 *       refusing its dial as it came back made it wait {@link Dialer#REFUSED_MILLIS} before it dialled again, which
 *       used up the reconnect time of {@link DroppedPeers}' grace (session 39).</li>
 * </ul>
 * Each drop of the same peer doubles its rest, from {@code firstRest} up to {@value #MAX_DOUBLINGS} doublings, so a
 * peer that claims pieces and never sends them is connected for ever shorter shares of the run. Thread-safe
 * (synchronized); time is the injected ticker's.
 */
final class RestingPeers {

    private static final Logger LOG = LoggerFactory.getLogger(RestingPeers.class);

    /** A rest is at most the first rest times 2 to this power. */
    static final int MAX_DOUBLINGS = 3;

    /** @param refuse whether this node dropped the peer, so refuses its dials until {@code untilNanos} */
    private record Rest(long untilNanos, int drops, boolean refuse) {
    }

    private final Ticker ticker;
    private final long firstRestNanos;
    private final Supplier<String> self;
    private final Map<String, Rest> rests = new HashMap<>();

    /** @param firstRestNanos the rest after a peer's first drop; @param self this node's id, for the log */
    RestingPeers(Ticker ticker, long firstRestNanos, Supplier<String> self) {
        if (firstRestNanos <= 0) {
            throw new IllegalArgumentException("firstRestNanos must be > 0, was " + firstRestNanos);
        }
        this.ticker = ticker;
        this.firstRestNanos = firstRestNanos;
        this.self = self;
    }

    /**
     * This node drops {@code p} for being slow ({@code what}): it rests, is told why ({@code GOODBYE(MISBEHAVIOUR)},
     * whose close lingers until the peer has read it) and is marked {@link Peer#droppedSlow} for the orphan rule.
     */
    void drop(Peer p, String what) {
        long nanos = rest(p.id);
        LOG.warn("{}: closing the connection to {}: it {}; not connected again for {} s", self.get(), p, what,
                TimeUnit.NANOSECONDS.toSeconds(nanos));
        p.droppedSlow = true;
        p.link.goodbye(Goodbye.Reason.MISBEHAVIOUR, what);
    }

    /**
     * This node dropped {@code peer}: it rests from now (its rest doubled if it rested before), neither dialled nor
     * accepted; returns how long, in nanoseconds.
     */
    synchronized long rest(String peer) {
        return rest(peer, true);
    }

    /**
     * {@code peer} dropped this node ({@code GOODBYE(MISBEHAVIOUR)}): it is not dialled for a rest (it would refuse),
     * but taken when it dials; returns how long, in nanoseconds.
     */
    synchronized long droppedBy(String peer) {
        return rest(peer, false);
    }

    private long rest(String peer, boolean refuse) {
        Rest before = rests.get(peer);
        int drops = before == null ? 0 : before.drops();
        long nanos = restNanos(drops + 1);
        rests.put(peer, new Rest(ticker.read() + nanos, drops + 1, refuse));
        return nanos;
    }

    /** The rest after a peer's {@code drops}-th drop (1 for the first), in nanoseconds. */
    long restNanos(int drops) {
        return firstRestNanos << Math.min(drops - 1, MAX_DOUBLINGS);
    }

    /** The length of {@code peer}'s last rest, over or not, in nanoseconds; 0 if it never rested. */
    synchronized long lastRestNanos(String peer) {
        Rest r = rests.get(peer);
        return r == null ? 0 : restNanos(r.drops());
    }

    /** Whether {@code peer} rests now: it is not dialled. */
    synchronized boolean isResting(String peer) {
        Rest r = rests.get(peer);
        return r != null && resting(r);
    }

    /** Whether {@code peer} rests now and this node dropped it: its dial is refused. */
    synchronized boolean refuses(String peer) {
        Rest r = rests.get(peer);
        return r != null && r.refuse() && resting(r);
    }

    private boolean resting(Rest r) {
        return ticker.read() - r.untilNanos() < 0;
    }
}
