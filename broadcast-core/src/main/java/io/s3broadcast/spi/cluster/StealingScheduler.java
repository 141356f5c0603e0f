package io.s3broadcast.spi.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decides, for the steal algorithm of phase 1, when this node sends {@code giveWork} and to whom, and when
 * its phase 1 is over. It keeps what peers advertise ({@code WorksLeft}: their {@code len}, see
 * {@link WorkList}), which peers refused, and the one {@code giveWork} this node has outstanding; it sends
 * nothing itself. Thread-safe (methods are synchronized), with no threads or timers of its own.
 *
 * <p>Rules:
 * <ul>
 * <li>While this node's own list has queued pieces it fetches ({@link Action#FETCH}).
 * <li>When nothing is left to hand out (its last runs may still be in flight), it steals: it sends one
 *     {@code giveWork} at a time to a <em>victim</em> drawn among the few peers with most works left (at
 *     least half as many as the most loaded, see {@link #victim()}), among peers that advertised at least
 *     one and have not refused, with the seeded {@link Random}, so idle nodes with different seeds spread
 *     over the loaded nodes instead of all asking one. (The paper
 *     steals once the list is empty; stealing when nothing is queued overlaps the round trip with the
 *     last runs, and is the same with one connection and runs of a whole work.)
 * <li>A victim that answers with no works has <em>refused</em> and is not asked again until it
 *     advertises more works than before (it received works itself).
 * <li>With nothing to hand out, no request outstanding and no victim left (no peer has works left, or
 *     all refused), the node is {@link Action#DONE}: no more works will come, and its phase 1 ends when
 *     its in-flight pieces are stored. {@code DONE} is re-evaluated on every call: a peer advertising more
 *     works makes it steal again.
 * <li>The non-steal algorithm ({@link #nonSteal()}) never steals: {@code DONE} as soon as nothing is left
 *     to hand out.
 * </ul>
 *
 * <p>Seed every peer with the size of its initial share in works ({@code Shares.works(...).size()})
 * before its first {@code WorksLeft} arrives, so a fast node does not finish before it hears from the
 * others. The works in a {@code giveWork} answer must always be appended to the list, even when the answer
 * is late or unexpected: the victim has already removed them from its own list.
 */
public final class StealingScheduler {

    /** What this node does next in phase 1. */
    public enum Action {
        /** Keep fetching: the own list has queued pieces. */
        FETCH,
        /** Send {@code giveWork} with {@link Step#requestId()} to {@link Step#victim()}. */
        STEAL,
        /** A {@code giveWork} is outstanding: wait for its answer. */
        WAIT,
        /** No more works will come: finish the pieces in flight, then phase 1 is over for this node. */
        DONE
    }

    /** A decision: the action, and for {@link Action#STEAL} and {@link Action#WAIT} the victim and request id. */
    public record Step(Action action, String victim, int requestId) {

        static final Step FETCH = new Step(Action.FETCH, null, 0);
        static final Step DONE = new Step(Action.DONE, null, 0);
    }

    /** Victims drawn from: the most loaded peers, this many at most. */
    static final int SPREAD = 3;

    private final boolean steal;
    private final Random random;
    /** Advertised works left by peer; a TreeMap so candidates are in a fixed order before the random pick. */
    private final Map<String, Integer> advertised = new TreeMap<>();
    private final Set<String> refused = new HashSet<>();
    private String outstandingVictim;
    private int outstandingId;
    private int lastRequestId;

    private StealingScheduler(boolean steal, Random random) {
        this.steal = steal;
        this.random = random;
    }

    /**
     * The steal algorithm; {@code random} breaks ties between equally loaded victims. Seed each node
     * differently with a well-mixed seed (a hash of its node id), so idle nodes spread over victims.
     */
    public static StealingScheduler steal(Random random) {
        return new StealingScheduler(true, Objects.requireNonNull(random, "random"));
    }

    /** The non-steal algorithm: never steals; still tracks what peers advertise for {@link #clusterFinished}. */
    public static StealingScheduler nonSteal() {
        return new StealingScheduler(false, new Random(0));
    }

    /** A peer advertised {@code works} works left (its {@code len}); also seeds a peer before it speaks. */
    public synchronized void worksLeft(String peer, int works) {
        Objects.requireNonNull(peer, "peer");
        if (works < 0) {
            throw new IllegalArgumentException("works must be >= 0, was " + works);
        }
        Integer before = advertised.put(peer, works);
        if (before != null && works > before) {
            refused.remove(peer);
        }
    }

    /** A peer left or died: it is no victim any more, and a request outstanding to it is abandoned. */
    public synchronized void peerLeft(String peer) {
        advertised.remove(peer);
        refused.remove(peer);
        if (peer.equals(outstandingVictim)) {
            outstandingVictim = null;
        }
    }

    /**
     * What to do next, given this node's own list. A {@link Action#STEAL} step records the request as
     * outstanding: the caller sends it, and reports the answer with {@link #answered}.
     */
    public synchronized Step next(WorkList.Remaining own) {
        if (!own.nothingToHandOut()) {
            return Step.FETCH;
        }
        if (!steal) {
            return Step.DONE;
        }
        if (outstandingVictim != null) {
            return new Step(Action.WAIT, outstandingVictim, outstandingId);
        }
        String victim = victim();
        if (victim == null) {
            return Step.DONE;
        }
        outstandingVictim = victim;
        outstandingId = ++lastRequestId;
        return new Step(Action.STEAL, victim, outstandingId);
    }

    /**
     * A peer answered a {@code giveWork} with {@code worksGiven} works (append them to the list whatever
     * this returns). Returns true when this was the outstanding request, which is then cleared; an answer
     * with no works marks the peer as refused. A stale answer (abandoned request) changes nothing.
     */
    public synchronized boolean answered(String peer, int requestId, int worksGiven) {
        if (!peer.equals(outstandingVictim) || requestId != outstandingId) {
            return false;
        }
        outstandingVictim = null;
        if (worksGiven == 0) {
            refused.add(peer);
        }
        return true;
    }

    /**
     * The peer to steal from now, or null. Works are of one size, so a peer's remaining time is estimated by
     * the works it advertised. Candidates are the {@link #SPREAD} peers with most works left (at least one, not
     * refused) that have at least half as many as the most loaded; one is drawn with the seeded random, with a
     * chance proportional to its works. So thieves that run dry together spread over the most loaded nodes
     * instead of all asking the same one, and a node with twice the works is asked about twice as often.
     */
    synchronized String victim() {
        List<Map.Entry<String, Integer>> candidates = new ArrayList<>();
        for (Map.Entry<String, Integer> e : advertised.entrySet()) {
            if (e.getValue() > 0 && !refused.contains(e.getKey())) {
                candidates.add(e);
            }
        }
        if (candidates.isEmpty()) {
            return null;
        }
        // Shuffled before the stable sort, so equally loaded peers beyond the SPREAD cut are drawn fairly.
        Collections.shuffle(candidates, random);
        candidates.sort(Map.Entry.<String, Integer>comparingByValue().reversed());
        int most = candidates.get(0).getValue();
        int total = 0;
        int n = 0;
        for (; n < Math.min(SPREAD, candidates.size()) && 2 * candidates.get(n).getValue() >= most; n++) {
            total += candidates.get(n).getValue();
        }
        int draw = random.nextInt(total);
        for (int i = 0; i < n; i++) {
            draw -= candidates.get(i).getValue();
            if (draw < 0) {
                return candidates.get(i).getKey();
            }
        }
        throw new AssertionError("unreachable");
    }

    /**
     * Phase 1 is over everywhere, as far as this node knows: its own list is empty, it has no request
     * outstanding, and every peer it knows last advertised no works. (With the steal algorithm this is a
     * snapshot of messages in flight: a peer may still hold an answer to a request. Non-steal's barrier,
     * "phase 2 starts when all nodes have finished phase 1", is exact.)
     */
    public synchronized boolean clusterFinished(WorkList.Remaining own) {
        if (own.works() != 0 || outstandingVictim != null) {
            return false;
        }
        for (int works : advertised.values()) {
            if (works != 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code peer} refused and has not advertised more works since. */
    synchronized boolean hasRefused(String peer) {
        return refused.contains(peer);
    }
}
