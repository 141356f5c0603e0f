package io.s3broadcast.spi.cluster;

import com.google.common.base.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The requests {@link RequestScheduler} has outstanding: which pieces are asked of which peer, how many peers each
 * piece is asked of, and the rate at which each peer delivered what it was asked for (pieces per second over the
 * rate window, metered from the first request to it). Not thread-safe: the scheduler holds its lock.
 */
final class OutstandingRequests {

    private final int pieceCount;
    private final Ticker ticker;
    private final Duration rateWindow;
    /** Pieces each peer delivered, per second; made when the first piece is requested from it. */
    private final Map<String, RateMeter> delivered = new HashMap<>();
    /** Pieces requested from each peer; a TreeMap so cancel lists come out in peer order. */
    private final Map<String, BitSet> requested = new TreeMap<>();
    /** How many peers each piece is requested from. */
    private final int[] requestCount;
    /** Pieces requested from at least one peer. */
    private final BitSet requestedAny;

    OutstandingRequests(int pieceCount, Ticker ticker, Duration rateWindow) {
        this.pieceCount = pieceCount;
        this.ticker = ticker;
        this.rateWindow = rateWindow;
        this.requestCount = new int[pieceCount];
        this.requestedAny = new BitSet(pieceCount);
    }

    /** The pieces asked of {@code peer} (live; made empty on first use). */
    BitSet of(String peer) {
        return requested.computeIfAbsent(peer, k -> new BitSet(pieceCount));
    }

    /** {@code piece} is now asked of {@code peer} too; its delivery rate is metered from now on. */
    void add(String peer, int piece) {
        delivered.computeIfAbsent(peer, k -> new RateMeter(ticker, rateWindow));
        of(peer).set(piece);
        requestCount[piece]++;
        requestedAny.set(piece);
    }

    /** Drops the request for {@code piece} to {@code peer}; false when there was none. */
    boolean remove(String peer, int piece) {
        BitSet mine = requested.get(peer);
        if (mine == null || !mine.get(piece)) {
            return false;
        }
        mine.clear(piece);
        unrequest(piece);
        return true;
    }

    /** {@code peer} left: every request to it is dropped, and its rate forgotten. */
    void peerLeft(String peer) {
        delivered.remove(peer);
        BitSet mine = requested.remove(peer);
        if (mine != null) {
            for (int p = mine.nextSetBit(0); p >= 0; p = mine.nextSetBit(p + 1)) {
                unrequest(p);
            }
        }
    }

    /**
     * {@code piece} is stored, delivered by {@code from} (null: not by a peer): every request for it is dropped,
     * the delivery counted for {@code from}'s rate, and the other peers it was asked of returned, in peer order.
     */
    List<RequestScheduler.PeerRequest> stored(int piece, String from) {
        if (!requestedAny.get(piece)) {
            return List.of();
        }
        List<RequestScheduler.PeerRequest> cancels = new ArrayList<>();
        for (Map.Entry<String, BitSet> e : requested.entrySet()) {
            if (e.getValue().get(piece)) {
                e.getValue().clear(piece);
                if (!e.getKey().equals(from)) {
                    cancels.add(new RequestScheduler.PeerRequest(e.getKey(), piece));
                } else {
                    RateMeter m = delivered.get(from);
                    if (m != null) {
                        m.record(1);
                    }
                }
            }
        }
        requestCount[piece] = 0;
        requestedAny.clear(piece);
        return cancels;
    }

    /** How many peers {@code piece} is asked of. */
    int count(int piece) {
        return requestCount[piece];
    }

    /** Pieces asked of at least one peer (live). */
    BitSet any() {
        return requestedAny;
    }

    /** Requests outstanding to {@code peer}. */
    int outstanding(String peer) {
        BitSet mine = requested.get(peer);
        return mine == null ? 0 : mine.cardinality();
    }

    /** The pieces asked of {@code peer}, in piece order. */
    int[] outstandingPieces(String peer) {
        BitSet mine = requested.get(peer);
        return mine == null ? new int[0] : mine.stream().toArray();
    }

    /** Pieces per second {@code peer} delivered over the rate window; 0 before its first piece. */
    double rate(String peer) {
        RateMeter m = delivered.get(peer);
        return m == null || m.total() == 0 ? 0 : m.bytesPerSecond();
    }

    /** Whether {@code peer} delivered a piece yet (its rate is measured). */
    boolean measured(String peer) {
        RateMeter m = delivered.get(peer);
        return m != null && m.total() > 0;
    }

    /** The peers whose rate is measured and at least {@code factor} times {@code peer}'s (none when its is not). */
    List<String> fasterThan(String peer, double factor) {
        if (!measured(peer)) {
            return List.of();
        }
        double rate = rate(peer);
        List<String> faster = new ArrayList<>();
        for (Map.Entry<String, RateMeter> e : delivered.entrySet()) {
            RateMeter m = e.getValue();
            if (!e.getKey().equals(peer) && m.total() > 0 && m.bytesPerSecond() >= factor * rate) {
                faster.add(e.getKey());
            }
        }
        return faster;
    }

    /**
     * For each piece of {@code pieces}, the highest delivery rate among the peers it is asked of (0 when none of
     * them is measured or nobody is asked: such a piece is at most risk); other entries 0.
     */
    double[] fastestRequester(BitSet pieces) {
        double[] best = new double[pieceCount];
        for (Map.Entry<String, BitSet> e : requested.entrySet()) {
            double rate = rate(e.getKey());
            if (rate == 0) {
                continue;
            }
            BitSet both = (BitSet) e.getValue().clone();
            both.and(pieces);
            for (int p = both.nextSetBit(0); p >= 0; p = both.nextSetBit(p + 1)) {
                best[p] = Math.max(best[p], rate);
            }
        }
        return best;
    }

    private void unrequest(int piece) {
        if (--requestCount[piece] == 0) {
            requestedAny.clear(piece);
        }
    }
}
