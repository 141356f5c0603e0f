package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.cluster.ChokeScheduler;
import io.s3broadcast.p2p.protocol.Choke;
import io.s3broadcast.p2p.protocol.Unchoke;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Puts the {@link ChokeScheduler}'s decisions on the wire (paper 000, sec. 4.2: choking and unchoking): a round
 * every choke interval on the run's scheduler, and at once when an unchoke slot is free and an interested peer
 * waits. Peers' {@code INTERESTED} and {@code NOT_INTERESTED} come here. On the run's loop only.
 */
final class ChokeDriver {

    private final ChokeScheduler choke;
    private final Map<String, Peer> peers;
    private final ScheduledExecutorService loop;
    private final int unchokeSlots;
    private ScheduledFuture<?> rounds;
    private boolean stopped;

    /**
     * @param peers the run's connected peers, by id
     * @param loop the run's scheduler: rounds run on it
     * @param unchokeSlots regular unchoke slots (the optimistic one comes on top)
     */
    ChokeDriver(ChokeScheduler choke, Map<String, Peer> peers, ScheduledExecutorService loop, int unchokeSlots) {
        this.choke = choke;
        this.peers = peers;
        this.loop = loop;
        this.unchokeSlots = unchokeSlots;
    }

    /** Starts a round every {@link ChokeScheduler#interval()}. */
    void start() {
        if (stopped || rounds != null) {
            return;
        }
        long interval = choke.interval().toNanos();
        rounds = loop.scheduleAtFixedRate(() -> apply(choke.tick()), interval, interval, TimeUnit.NANOSECONDS);
    }

    /** No more rounds and no more decisions sent. */
    void stop() {
        stopped = true;
        if (rounds != null) {
            rounds.cancel(false);
        }
    }

    /** {@code p} says it is interested or not. */
    void interested(Peer p, boolean interested) {
        p.peerInterested = interested;
        choke.interested(p.id, interested);
        rechokeIfSlotsFree();
    }

    private void apply(ChokeScheduler.Decisions d) {
        if (stopped) {
            return;
        }
        for (String id : d.unchoke()) {
            Peer p = peers.get(id);
            if (p != null) {
                p.link.send(Unchoke.INSTANCE);
            }
        }
        for (String id : d.choke()) {
            Peer p = peers.get(id);
            if (p != null) {
                p.link.send(Choke.INSTANCE);
            }
        }
    }

    /**
     * Fills a free unchoke slot at once instead of at the next interval: when fewer interested peers are
     * unchoked than there are slots (the regular ones and the optimistic one) and an interested peer waits.
     * A peer that lost interest (it completed, say) frees its slot this way without waiting for the timer.
     */
    void rechokeIfSlotsFree() {
        if (stopped) {
            return;
        }
        int served = 0;
        boolean waiting = false;
        for (Peer p : peers.values()) {
            if (!p.peerInterested) {
                continue;
            }
            if (choke.isChoking(p.id)) {
                waiting = true;
            } else {
                served++;
            }
        }
        if (waiting && served < unchokeSlots + 1) {
            apply(choke.rechoke());
        }
    }
}
