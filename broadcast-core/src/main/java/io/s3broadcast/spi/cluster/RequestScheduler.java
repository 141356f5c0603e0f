package io.s3broadcast.spi.cluster;

import io.s3broadcast.spi.Bitfield;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * Decides which pieces this node requests from which peer in phase 2, bt-style: it keeps the pieces this
 * node holds, what each peer holds ({@link Availability}), and every request outstanding, and answers
 * "what should I request from this peer now?" and "a piece arrived: which requests do I cancel?". It sends
 * nothing itself. Thread-safe (methods are synchronized), with no threads or timers of its own.
 *
 * <p>Rules:
 * <ul>
 * <li><b>Candidates.</b> A piece may be requested from a peer when the peer holds it, this node does
 *     not, it is not requested from any peer, and this node's own S3 fetch will not deliver it
 *     ({@link SourcePieces#isPending}: queued or in flight in the {@link WorkList}). That last rule is the
 *     overlap rule: a piece in flight from S3 is not also fetched from a peer, and neither is one the S3
 *     fetch is yet to take. The {@link PieceSelector} orders candidates (rarest first).
 * <li><b>Faster peers for the rarest pieces</b> ({@code FasterPeersFirst}). Once rates are measured, a
 *     peer that delivers at less than half the rate of another peer asks first for the pieces no such
 *     faster peer holds, and only then (selector order again) for pieces a faster peer could send: the
 *     rare pieces the faster peers hold are left to them.
 * <li><b>Front window</b> ({@code FrontWindow}, when {@link RequestSchedulerBuilder#frontWindow} is set). The
 *     candidates among the first pieces this node lacks come before the rest (each part ordered by the rules
 *     above), so a sequential digest of the object (a single-part ETag) hashes along with the transfer; once
 *     every missing piece is inside the window, the lowest come first, whatever the rules above say, so little
 *     is left to hash at the end.
 * <li><b>Pipelining.</b> At most {@link RequestDepth#depth} requests are outstanding to one peer, from
 *     the rate it delivered pieces at over the rate window (a {@linkplain RequestDepth#fixed fixed}
 *     {@code maxRequestsPerPeer} unless a depth policy is set), never more than
 *     {@code maxRequestsPerPeer}; {@link #nextRequests} returns only what fits in that budget. A request
 *     stays outstanding until the piece is stored, the peer rejects it or sends bad data
 *     ({@link #requestFailed}), the peer leaves, or it is cancelled.
 * <li><b>Endgame</b> ({@code Endgame}). When at least one piece is missing and every missing piece is in
 *     flight, from a peer or from S3 ({@link SourcePieces#isInFlight}), a peer's budget left after ordinary
 *     candidates goes to duplicate requests: missing pieces it holds and was not yet asked for, unless a peer
 *     they are asked of was measured at more than 1 / {@value #FASTER} of its rate; fewest outstanding
 *     requests first, then the piece whose fastest requester delivers slowest. When a piece is stored,
 *     {@link #pieceStored} returns every other request for it, to cancel.
 * </ul>
 *
 * <p>The caller asks {@link #nextRequests} only for peers that unchoke this node, and feeds every
 * bitfield, have, departure, stored piece (from peers and from S3) and failed request.
 */
public final class RequestScheduler {

    /** A request for {@code piece} outstanding to {@code peer}. */
    public record PeerRequest(String peer, int piece) {
    }

    /**
     * Ahead of another peer by this factor, a peer is left the rare pieces only it and its like hold, and may
     * duplicate in endgame what that slower peer was asked for.
     */
    static final double FASTER = 2;

    private final int pieceCount;
    private final BitSet have;
    private final Availability availability;
    private final SourcePieces source;
    private final int maxRequestsPerPeer;
    private final RequestDepth depth;
    private final OutstandingRequests outstanding;
    private final FasterPeersFirst fasterFirst;
    private final FrontWindow frontWindow;
    private final Endgame endgame;

    RequestScheduler(RequestSchedulerBuilder b) {
        this.pieceCount = b.pieceCount;
        this.have = new BitSet(pieceCount);
        if (b.have != null) {
            if (b.have.size() != pieceCount) {
                throw new IllegalArgumentException("bitfield of " + b.have.size() + " pieces, object has " + pieceCount);
            }
            for (int p = b.have.nextSet(0); p >= 0; p = b.have.nextSet(p + 1)) {
                have.set(p);
            }
        }
        this.availability = new Availability(pieceCount);
        this.source = b.source;
        this.maxRequestsPerPeer = b.maxRequestsPerPeer;
        this.depth = b.depth != null ? b.depth : RequestDepth.fixed(b.maxRequestsPerPeer);
        this.outstanding = new OutstandingRequests(pieceCount, b.ticker, b.rateWindow);
        this.fasterFirst = new FasterPeersFirst(pieceCount, outstanding, b.selector, availability);
        this.frontWindow = new FrontWindow(b.frontWindow);
        this.endgame = new Endgame(pieceCount, have, outstanding, source, b.selector, availability);
    }

    /** A scheduler for an object of {@code pieceCount} pieces. */
    public static RequestSchedulerBuilder builder(int pieceCount) {
        return new RequestSchedulerBuilder(pieceCount);
    }

    /** {@code peer} sent its bitfield (a peer that sends {@code Done} holds {@code Bitfield.full}). */
    public synchronized void peerBitfield(String peer, Bitfield bitfield) {
        availability.bitfield(peer, bitfield);
    }

    /** {@code peer} announced that it now holds {@code piece}. */
    public synchronized void peerHave(String peer, int piece) {
        availability.have(peer, piece);
    }

    /** {@code peer} left: its pieces no longer count and its outstanding requests are dropped. */
    public synchronized void peerLeft(String peer) {
        availability.leave(peer);
        outstanding.peerLeft(peer);
    }

    /** Whether {@code peer} holds a piece this node lacks (this node should be interested in it). */
    public synchronized boolean isInteresting(String peer) {
        BitSet b = (BitSet) availability.pieces(peer).clone();
        b.andNot(have);
        return !b.isEmpty();
    }

    /**
     * The pieces to request from {@code peer} now, best first, within its request budget; they are
     * recorded as outstanding. Empty when the budget is full or the peer has nothing this node may ask
     * for (see the class comment for candidates and endgame).
     */
    public synchronized int[] nextRequests(String peer) {
        Objects.requireNonNull(peer, "peer");
        BitSet peerPieces = availability.pieces(peer);
        if (peerPieces.isEmpty()) {
            return new int[0];
        }
        BitSet mine = outstanding.of(peer);
        int budget = depth(peer) - mine.cardinality();
        if (budget <= 0) {
            return new int[0];
        }
        BitSet candidates = (BitSet) peerPieces.clone();
        candidates.andNot(have);
        candidates.andNot(outstanding.any());
        for (int p = candidates.nextSetBit(0); p >= 0; p = candidates.nextSetBit(p + 1)) {
            if (source.isPending(p)) {
                candidates.clear(p);
            }
        }
        int lastMissing = have.previousClearBit(pieceCount - 1);
        int[] picked = frontWindow.select(candidates, have.nextClearBit(0), lastMissing, budget,
                (some, limit) -> fasterFirst.select(peer, some, limit));
        for (int p : picked) {
            outstanding.add(peer, p);
        }
        if (picked.length == budget || !endgame.holds()) {
            return picked;
        }
        int[] extra = endgame.duplicates(peer, peerPieces, budget - picked.length);
        int[] out = Arrays.copyOf(picked, picked.length + extra.length);
        for (int i = 0; i < extra.length; i++) {
            outstanding.add(peer, extra[i]);
            out[picked.length + i] = extra[i];
        }
        return out;
    }

    /**
     * {@code piece} is stored and verified, delivered by peer {@code from} ({@code null} when it came from
     * S3 or elsewhere). Returns the requests for it still outstanding to other peers, in peer order: send
     * each a cancel. They are no longer counted as outstanding.
     */
    public synchronized List<PeerRequest> pieceStored(int piece, String from) {
        checkPiece(piece);
        have.set(piece);
        return outstanding.stored(piece, from);
    }

    /** The pieces this scheduler holds: its initial bitfield, then every {@link #pieceStored} (a copy). */
    public synchronized Bitfield held() {
        Bitfield out = new Bitfield(pieceCount);
        for (int p = have.nextSetBit(0); p >= 0; p = have.nextSetBit(p + 1)) {
            out.set(p);
        }
        return out;
    }

    /** {@code piece} is stored, from S3 or elsewhere: as {@code pieceStored(piece, null)}. */
    public List<PeerRequest> pieceStored(int piece) {
        return pieceStored(piece, null);
    }

    /**
     * {@code peer} will not deliver {@code piece} (it rejected the request, sent bad data, or timed out):
     * the request is dropped and the piece may be requested again. Returns false when no such request was
     * outstanding.
     */
    public synchronized boolean requestFailed(String peer, int piece) {
        checkPiece(piece);
        return outstanding.remove(peer, piece);
    }

    /** At least one piece is missing and every missing piece is in flight, from a peer or from S3. */
    public synchronized boolean isEndgame() {
        return endgame.holds();
    }

    /**
     * Requests this node keeps outstanding to {@code peer} now: the {@link RequestDepth} for the rate the
     * peer delivered at, at most {@code maxRequestsPerPeer}.
     */
    public synchronized int depth(String peer) {
        int d = depth.depth(outstanding.rate(peer), outstanding.measured(peer));
        return Math.max(1, Math.min(maxRequestsPerPeer, d));
    }

    /** Pieces per second {@code peer} delivered over the rate window; 0 before its first piece. */
    public synchronized double piecesPerSecond(String peer) {
        return outstanding.rate(peer);
    }

    /** Requests outstanding to {@code peer}. */
    public synchronized int outstanding(String peer) {
        return outstanding.outstanding(peer);
    }

    /** The requests outstanding to {@code peer}, in piece order. */
    public synchronized int[] outstandingPieces(String peer) {
        return outstanding.outstandingPieces(peer);
    }

    public synchronized boolean hasPiece(int piece) {
        checkPiece(piece);
        return have.get(piece);
    }

    /** Pieces this node still lacks. */
    public synchronized int missing() {
        return pieceCount - have.cardinality();
    }

    public synchronized boolean isComplete() {
        return have.cardinality() == pieceCount;
    }

    /** How many connected peers hold {@code piece}. */
    public synchronized int availability(int piece) {
        checkPiece(piece);
        return availability.count(piece);
    }

    private void checkPiece(int piece) {
        if (piece < 0 || piece >= pieceCount) {
            throw new IndexOutOfBoundsException("piece " + piece + " outside [0, " + pieceCount + ")");
        }
    }
}
