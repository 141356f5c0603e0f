package io.s3broadcast.spi.cluster;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

/**
 * The choking algorithm of phase 2 for one node: the peer exchange feeds it connections, interest and
 * byte counts, calls {@link #tick()} from a timer, and sends the {@link Decisions} it returns as
 * {@code Choke}/{@code Unchoke} messages. Thread-safe (methods are synchronized), with no threads or
 * timers of its own: time comes from the injected {@link Ticker}.
 *
 * <p>Every {@code interval} it asks its {@link ChokePolicy} whom to unchoke, ranking peers by the download
 * rate they gave this node over the last {@code rateWindow} (once this node is {@linkplain #seeding
 * seeding}: the rate it uploaded to them) and by their progress ({@link #peerPieces}). With
 * {@linkplain ChokePolicy#titForTat tit-for-tat} (the builder's default) that is the {@code slots} fastest
 * interested peers plus one optimistic unchoke among the others, drawn again every {@code optimisticEvery}
 * intervals; with {@linkplain ChokePolicy#cooperative cooperative} it is every interested peer up to
 * {@code slots + 1}, the last slot optimistic when capped, and (given
 * {@link ChokeSchedulerBuilder#piecesHeld}) at most {@value PiecesHeldCap#UNCHOKED_PER_PIECE} per piece this
 * node holds ({@code PiecesHeldCap}). Either never unchokes an uninterested peer and never flips one
 * connection twice within {@code minFlipInterval}. The full rule is on {@code Choker}; the
 * {@link ChokeSchedulerBuilder} makes the policy from the settings.
 * Deterministic for a seeded {@link Random} and a fake ticker.
 */
public final class ChokeScheduler {

    /**
     * What to send now: {@code Unchoke} to each of {@code unchoke}, {@code Choke} to each of
     * {@code choke}, both in peer order.
     */
    public record Decisions(List<String> unchoke, List<String> choke) {

        public static final Decisions NONE = new Decisions(List.of(), List.of());

        public Decisions {
            unchoke = List.copyOf(unchoke);
            choke = List.copyOf(choke);
        }

        public boolean isEmpty() {
            return unchoke.isEmpty() && choke.isEmpty();
        }
    }

    private static final class Peer {
        final RateMeter down;
        final RateMeter up;
        boolean interested;
        int pieces;

        Peer(Ticker ticker, Duration window) {
            this.down = new RateMeter(ticker, window);
            this.up = new RateMeter(ticker, window);
        }
    }

    private final Ticker ticker;
    private final Duration interval;
    private final Duration rateWindow;
    private final ChokePolicy choker;
    private final Map<String, Peer> peers = new HashMap<>();
    private boolean seeding;
    private boolean decided;
    private long lastDecision;

    /** Asks {@code choker} every {@code interval}; peers' rates metered over {@code rateWindow} on {@code ticker}. */
    ChokeScheduler(Ticker ticker, Duration interval, Duration rateWindow, ChokePolicy choker) {
        this.ticker = ticker;
        this.interval = interval;
        this.rateWindow = rateWindow;
        this.choker = choker;
    }

    public static ChokeSchedulerBuilder builder() {
        return new ChokeSchedulerBuilder();
    }

    /** How often {@link #tick()} is to be called. */
    public Duration interval() {
        return interval;
    }

    /** A connection to {@code peer} is up; it starts choked and not interested. */
    public synchronized void peerConnected(String peer) {
        Objects.requireNonNull(peer, "peer");
        peers.putIfAbsent(peer, new Peer(ticker, rateWindow));
    }

    /** The connection to {@code peer} is gone; events for it are ignored until it connects again. */
    public synchronized void peerLeft(String peer) {
        peers.remove(peer);
    }

    /** {@code peer} said it is (or is not) interested in this node's pieces. */
    public synchronized void interested(String peer, boolean interested) {
        Peer p = peers.get(peer);
        if (p != null) {
            p.interested = interested;
        }
    }

    /** {@code bytes} of piece data arrived from {@code peer}. */
    public synchronized void downloaded(String peer, long bytes) {
        Peer p = peers.get(peer);
        if (p != null) {
            p.down.record(bytes);
        }
    }

    /** {@code bytes} of piece data were sent to {@code peer}. */
    public synchronized void uploaded(String peer, long bytes) {
        Peer p = peers.get(peer);
        if (p != null) {
            p.up.record(bytes);
        }
    }

    /**
     * {@code peer} holds {@code pieces} pieces (from its bitfield and haves): the cooperative policy, when
     * capped, prefers the peers that hold fewest. Unknown peers count 0.
     */
    public synchronized void peerPieces(String peer, int pieces) {
        Peer p = peers.get(peer);
        if (p != null) {
            p.pieces = pieces;
        }
    }

    /** This node holds every piece: rank peers by upload rate instead of download rate. */
    public synchronized void seeding(boolean seeding) {
        this.seeding = seeding;
    }

    /**
     * Decides when an interval has passed since the last decision (or none was made yet), else returns
     * {@link Decisions#NONE}, so a timer that fires early or twice changes nothing.
     */
    public synchronized Decisions tick() {
        long now = ticker.read();
        if (decided && now - lastDecision < interval.toNanos()) {
            return Decisions.NONE;
        }
        return decide(now);
    }

    /** Decides now, whatever the time since the last decision (the minimum flip interval still holds). */
    public synchronized Decisions rechoke() {
        return decide(ticker.read());
    }

    /** Whether this node chokes {@code peer} (unknown peers are choked). */
    public synchronized boolean isChoking(String peer) {
        return choker.isChoking(peer);
    }

    /** The peer holding the optimistic unchoke, or null. */
    public synchronized String optimisticUnchoke() {
        return choker.optimistic();
    }

    /** The rate {@code peer} is ranked by now, bytes per second (download, or upload when seeding). */
    public synchronized double rate(String peer) {
        Peer p = peers.get(peer);
        return p == null ? 0 : (seeding ? p.up : p.down).bytesPerSecond();
    }

    private Decisions decide(long now) {
        decided = true;
        lastDecision = now;
        Map<String, ChokePolicy.Candidate> view = new HashMap<>();
        for (Map.Entry<String, Peer> e : peers.entrySet()) {
            Peer p = e.getValue();
            view.put(e.getKey(), new ChokePolicy.Candidate(p.interested, (seeding ? p.up : p.down).bytesPerSecond(),
                    p.pieces));
        }
        return choker.decide(now, view);
    }
}
