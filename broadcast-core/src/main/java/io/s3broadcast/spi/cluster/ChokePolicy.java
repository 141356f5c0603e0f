package io.s3broadcast.spi.cluster;

import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.IntSupplier;

/**
 * Whom this node uploads to in phase 2: given each connected peer's interest, rate and progress at a
 * moment, decides whom to choke and unchoke, and remembers each connection's state. {@link ChokeScheduler}
 * feeds it (meters, clock, timer); a policy has no clock of its own. Not thread-safe: the scheduler
 * guards it.
 *
 * <p>Two policies share one mechanism ({@code Choker}: ranked regular slots, one optimistic unchoke drawn
 * again every {@code optimisticNanos}, at most one flip of a connection per {@code minFlipNanos}) and
 * differ in how many regular slots there are and how peers are ranked:
 * <ul>
 * <li>{@link #titForTat}: BitTorrent's. A fixed number of regular slots for the interested peers that
 *     gave this node the most (rate), and a peer that loses interest is choked.
 * <li>{@link #cooperative}: for a cluster of authenticated nodes that all want every piece. Every
 *     interested peer is unchoked up to {@code maxUnchoked} (the optimistic one included), so no uploader
 *     idles while a peer wants its pieces; only when more are interested does ranking matter: peers that
 *     upload to this node first (rate), then the peers that hold fewest pieces (they need the most), and
 *     one slot stays optimistic. A peer that loses interest keeps its unchoke while there is room, so it
 *     can ask again at once when this node gets a piece it lacks.
 * </ul>
 */
public interface ChokePolicy {

    /**
     * A connected peer as a policy sees it at one decision.
     *
     * @param interested whether it wants this node's pieces
     * @param rate bytes per second it gave this node over the rate window (what this node gave it, once
     *     seeding)
     * @param pieces pieces it holds, as far as this node knows (0 when unknown)
     */
    record Candidate(boolean interested, double rate, int pieces) {
    }

    /** Decides at time {@code now} (nanoseconds) for the peers connected now; peers absent are forgotten. */
    ChokeScheduler.Decisions decide(long now, Map<String, Candidate> peers);

    /** Whether this node chokes {@code peer}; unknown peers are choked. */
    boolean isChoking(String peer);

    /** The current optimistic unchoke, or null. */
    String optimistic();

    /**
     * BitTorrent's tit-for-tat: the {@code slots} interested peers with the highest rate (ties by peer id)
     * plus one optimistic unchoke; an uninterested peer is choked.
     */
    static ChokePolicy titForTat(int slots, long optimisticNanos, long minFlipNanos, Random random) {
        return new Choker(slots, ChokePolicy::byRate, false, optimisticNanos, minFlipNanos, random, Choker.NO_CAP);
    }

    /**
     * Cooperative: every interested peer is unchoked, up to {@code maxUnchoked} at once (the optimistic one
     * included); when capped, {@code maxUnchoked - 1} regular slots go to the peers with the highest rate,
     * then fewest pieces, then peer id, and one stays optimistic. Unchoked peers that lost interest keep
     * their unchoke while fewer than {@code maxUnchoked} are wanted.
     */
    static ChokePolicy cooperative(int maxUnchoked, long optimisticNanos, long minFlipNanos, Random random) {
        return cooperative(maxUnchoked, optimisticNanos, minFlipNanos, random, Choker.NO_CAP);
    }

    /**
     * As {@link #cooperative(int, long, long, Random)}, with at most {@code cap} peers unchoked at once, read at
     * every decision (at least 1; {@link PiecesHeldCap}: a few per piece this node holds).
     */
    static ChokePolicy cooperative(int maxUnchoked, long optimisticNanos, long minFlipNanos, Random random,
            IntSupplier cap) {
        if (maxUnchoked < 1) {
            throw new IllegalArgumentException("maxUnchoked must be >= 1, was " + maxUnchoked);
        }
        return new Choker(maxUnchoked - 1,
                peers -> byRate(peers).thenComparingInt((String p) -> peers.get(p).pieces()), true,
                optimisticNanos, minFlipNanos, random, cap);
    }

    private static Comparator<String> byRate(Map<String, Candidate> peers) {
        return Comparator.comparingDouble((String p) -> peers.get(p).rate()).reversed();
    }

    /** The policies a node can be configured with ({@code s3broadcast.chokePolicy}). */
    enum Kind {
        /** {@link #cooperative}. */
        COOPERATIVE("cooperative"),
        /** {@link #titForTat}. */
        TIT_FOR_TAT("tit-for-tat");

        private final String text;

        Kind(String text) {
            this.text = text;
        }

        /** {@code cooperative} or {@code tit-for-tat} (case and {@code _}/{@code -} ignored). */
        public static Kind parse(String text) {
            String t = text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
            for (Kind k : values()) {
                if (k.text.equals(t) || k.text.replace("-", "").equals(t.replace("-", ""))) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown choke policy '" + text + "': use cooperative or tit-for-tat");
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
