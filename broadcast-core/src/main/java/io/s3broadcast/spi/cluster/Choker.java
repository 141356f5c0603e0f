package io.s3broadcast.spi.cluster;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * The mechanism behind both {@link ChokePolicy} implementations, bt-style, without clocks or meters of its
 * own: given each connected peer's interest, rate and progress at a moment, it decides whom to choke and
 * unchoke and remembers every connection's state and last flip. Not thread-safe.
 *
 * <p>One decision:
 * <ol>
 * <li><b>Regular unchokes.</b> Interested peers in ranking order (the policy's comparator, then peer id);
 *     the first {@code slots} of them that are unchoked already or may flip now.
 * <li><b>Optimistic unchoke.</b> One more interested peer outside the regular ones, drawn with the
 *     seeded random among the choked ones that may flip (if there are none, among the unchoked ones). It
 *     is drawn again once {@code optimisticNanos} have passed since it was drawn, or at once if it left,
 *     lost interest or became a regular one.
 * <li><b>Idle keep</b> (cooperative only). While fewer than {@code slots + 1} peers are wanted, peers that
 *     are unchoked but not interested stay unchoked (in peer order), up to {@code slots + 1} in all.
 * <li><b>Flips.</b> Every wanted peer that is choked is unchoked; every other unchoked peer is choked
 *     (an uninterested peer is never unchoked). A connection flips (either way) at most once per
 *     {@code minFlipNanos}: a flip that comes too soon waits for a later decision, so the unchoked set
 *     may briefly hold a peer it no longer wants.
 * </ol>
 * New connections start choked and may flip at once. A {@code cap} (the cooperative policy's
 * {@link PiecesHeldCap}) bounds the peers wanted at each decision: fewer regular slots, and no idle keep beyond it;
 * peers unchoked already are choked as their minimum flip interval allows.
 */
final class Choker implements ChokePolicy {

    /** No cap on the peers unchoked at once beyond the slots. */
    static final IntSupplier NO_CAP = () -> Integer.MAX_VALUE;

    private static final class Connection {
        boolean choked = true;
        boolean everFlipped;
        long lastFlip;
    }

    private final int slots;
    private final Function<Map<String, Candidate>, Comparator<String>> ranking;
    private final boolean keepIdle;
    private final long optimisticNanos;
    private final long minFlipNanos;
    private final Random random;
    /** The most peers unchoked at once (the optimistic one included), read at each decision; at least 1 is used. */
    private final IntSupplier cap;
    private final Map<String, Connection> connections = new TreeMap<>();
    private String optimistic;
    private long optimisticSince;

    /**
     * @param ranking for the candidates of one decision, the order of regular unchokes, best first (peer
     *     id breaks ties)
     * @param keepIdle whether unchoked peers that lost interest stay unchoked while there is room
     * @param cap the most peers wanted at a decision, read at each ({@link #NO_CAP}: none)
     */
    Choker(int slots, Function<Map<String, Candidate>, Comparator<String>> ranking, boolean keepIdle,
            long optimisticNanos, long minFlipNanos, Random random, IntSupplier cap) {
        if (slots < 0) {
            throw new IllegalArgumentException("slots must be >= 0, was " + slots);
        }
        this.slots = slots;
        this.ranking = ranking;
        this.keepIdle = keepIdle;
        this.optimisticNanos = optimisticNanos;
        this.minFlipNanos = minFlipNanos;
        this.random = random;
        this.cap = Objects.requireNonNull(cap, "cap");
    }

    @Override
    public ChokeScheduler.Decisions decide(long now, Map<String, Candidate> peers) {
        int slots = Math.min(this.slots, Math.max(1, cap.getAsInt()) - 1);
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
        ranked.sort(ranking.apply(peers).thenComparing(Comparator.naturalOrder()));

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

        Set<String> wanted = new HashSet<>(regular);
        if (optimistic != null) {
            wanted.add(optimistic);
        }
        if (keepIdle) {
            for (Map.Entry<String, Connection> e : connections.entrySet()) {
                if (wanted.size() > slots) {
                    break;
                }
                if (!e.getValue().choked && !peers.get(e.getKey()).interested()) {
                    wanted.add(e.getKey());
                }
            }
        }

        List<String> unchoke = new ArrayList<>();
        List<String> choke = new ArrayList<>();
        for (Map.Entry<String, Connection> e : connections.entrySet()) {
            String p = e.getKey();
            Connection c = e.getValue();
            boolean want = wanted.contains(p);
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

    @Override
    public boolean isChoking(String peer) {
        Connection c = connections.get(peer);
        return c == null || c.choked;
    }

    @Override
    public String optimistic() {
        return optimistic;
    }

    private boolean mayFlip(Connection c, long now) {
        return !c.everFlipped || now - c.lastFlip >= minFlipNanos;
    }
}
