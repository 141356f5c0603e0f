package io.s3broadcast.internal.cluster;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * The choking decision, bt-style, without clocks or meters of its own: given each connected peer's
 * interest and rate at a moment, it decides whom to choke and unchoke and remembers every connection's
 * state and last flip. {@link ChokeScheduler} feeds it. Not thread-safe.
 *
 * <p>One decision:
 * <ol>
 * <li><b>Regular unchokes.</b> Interested peers ranked by rate, fastest first (ties by peer id); the
 *     first {@code slots} of them that are unchoked already or may flip now.
 * <li><b>Optimistic unchoke.</b> One more interested peer outside the regular ones, drawn with the
 *     seeded random among the choked ones that may flip (if there are none, among the unchoked ones). It
 *     is drawn again once {@code optimisticNanos} have passed since it was drawn, or at once if it left,
 *     lost interest or became a regular one.
 * <li><b>Flips.</b> Every peer in 1 or 2 that is choked is unchoked; every other unchoked peer is choked
 *     (an uninterested peer is never unchoked). A connection flips (either way) at most once per
 *     {@code minFlipNanos}: a flip that comes too soon waits for a later decision, so the unchoked set
 *     may briefly hold a peer it no longer wants.
 * </ol>
 * New connections start choked and may flip at once.
 */
final class Choker {

    /** A connected peer as the choker sees it at one decision. */
    record Candidate(boolean interested, double rate) {
    }

    private static final class Connection {
        boolean choked = true;
        boolean everFlipped;
        long lastFlip;
    }

    private final int slots;
    private final long optimisticNanos;
    private final long minFlipNanos;
    private final Random random;
    private final Map<String, Connection> connections = new TreeMap<>();
    private String optimistic;
    private long optimisticSince;

    Choker(int slots, long optimisticNanos, long minFlipNanos, Random random) {
        if (slots < 0) {
            throw new IllegalArgumentException("slots must be >= 0, was " + slots);
        }
        this.slots = slots;
        this.optimisticNanos = optimisticNanos;
        this.minFlipNanos = minFlipNanos;
        this.random = random;
    }

    /** Decides at time {@code now} (nanoseconds) for the peers connected now; peers absent are forgotten. */
    ChokeScheduler.Decisions decide(long now, Map<String, Candidate> peers) {
        connections.keySet().retainAll(peers.keySet());
        for (String peer : peers.keySet()) {
            connections.computeIfAbsent(peer, k -> new Connection());
        }

        List<String> ranked = new ArrayList<>();
        for (Map.Entry<String, Candidate> e : peers.entrySet()) {
            if (e.getValue().interested()) {
                ranked.add(e.getKey());
            }
        }
        ranked.sort(Comparator.comparingDouble((String p) -> peers.get(p).rate()).reversed()
                .thenComparing(Comparator.naturalOrder()));

        Set<String> regular = new HashSet<>();
        for (String p : ranked) {
            if (regular.size() >= slots) {
                break;
            }
            Connection c = connections.get(p);
            if (!c.choked || mayFlip(c, now)) {
                regular.add(p);
            }
        }

        boolean redraw = optimistic == null
                || !peers.containsKey(optimistic)
                || !peers.get(optimistic).interested()
                || regular.contains(optimistic)
                || now - optimisticSince >= optimisticNanos;
        if (redraw) {
            List<String> pool = new ArrayList<>();
            List<String> fallback = new ArrayList<>();
            for (String p : connections.keySet()) {
                if (!peers.get(p).interested() || regular.contains(p)) {
                    continue;
                }
                Connection c = connections.get(p);
                if (c.choked && mayFlip(c, now)) {
                    pool.add(p);
                } else if (!c.choked) {
                    fallback.add(p);
                }
            }
            List<String> from = pool.isEmpty() ? fallback : pool;
            optimistic = from.isEmpty() ? null : from.get(random.nextInt(from.size()));
            optimisticSince = now;
        }

        List<String> unchoke = new ArrayList<>();
        List<String> choke = new ArrayList<>();
        for (Map.Entry<String, Connection> e : connections.entrySet()) {
            String p = e.getKey();
            Connection c = e.getValue();
            boolean want = regular.contains(p) || p.equals(optimistic);
            if (want == !c.choked || !mayFlip(c, now)) {
                continue;
            }
            c.choked = !want;
            c.everFlipped = true;
            c.lastFlip = now;
            (want ? unchoke : choke).add(p);
        }
        return new ChokeScheduler.Decisions(unchoke, choke);
    }

    /** Whether this node chokes {@code peer}; unknown peers are choked. */
    boolean isChoking(String peer) {
        Connection c = connections.get(peer);
        return c == null || c.choked;
    }

    /** The current optimistic unchoke, or null. */
    String optimistic() {
        return optimistic;
    }

    private boolean mayFlip(Connection c, long now) {
        return !c.everFlipped || now - c.lastFlip >= minFlipNanos;
    }
}
