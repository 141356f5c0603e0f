package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.spi.cluster.RequestScheduler;
import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.Cancel;
import io.s3broadcast.p2p.protocol.Have;
import io.s3broadcast.p2p.protocol.Interested;
import io.s3broadcast.p2p.protocol.NotInterested;
import io.s3broadcast.p2p.protocol.Reject;
import io.s3broadcast.p2p.protocol.Request;
import io.s3broadcast.spi.Bitfield;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Phase 2's requests (paper 000, sec. 4.2): what each peer holds (its {@code BITFIELD} and {@code HAVE}s), our
 * interest in it, {@code REQUEST}s to peers that unchoke this node (which pieces: the {@link RequestScheduler}),
 * and requests that fail: a {@code REJECT} or no answer within the request timeout sends the piece elsewhere;
 * a peer that leaves {@link BanList#THRESHOLD} requests unanswered is dropped as slow (it rests: {@link
 * RestingPeers}), one that breaks a rule of the exchange as misbehaving (banned). On the run's loop only;
 * time is the injected ticker's.
 */
final class PieceExchange {

    private static final Logger LOG = LoggerFactory.getLogger(PieceExchange.class);

    /** Hears a peer that broke a rule of the exchange ({@code what}), or one too slow to keep. */
    @FunctionalInterface
    interface Misbehaviour {
        void misbehaved(Peer peer, String what);
    }

    private final Map<String, Peer> peers;
    private final RequestScheduler requests;
    private final Ticker ticker;
    private final Duration requestTimeout;
    private final BooleanSupplier mayRequest;
    private final BooleanSupplier wantsPieces;
    private final IntPredicate vouched;
    private final Misbehaviour misbehaviour;
    private final Misbehaviour slow;
    private final Supplier<String> self;

    /**
     * @param peers the run's connected peers, by id
     * @param mayRequest whether requests may go out now (the run is not closing or complete, phase 2 is allowed)
     * @param wantsPieces whether this node still wants pieces at all (false once complete)
     * @param vouched whether a piece has a digest to check it against: a piece without one is not requested
     * @param misbehaviour hears a peer that broke a rule of the exchange: it is closed and not taken back
     * @param slow hears a peer that left {@link BanList#THRESHOLD} requests unanswered: it is closed for a while
     * @param self this node's id, for the log
     */
    PieceExchange(Map<String, Peer> peers, RequestScheduler requests, Ticker ticker, Duration requestTimeout,
            BooleanSupplier mayRequest, BooleanSupplier wantsPieces, IntPredicate vouched, Misbehaviour misbehaviour,
            Misbehaviour slow, Supplier<String> self) {
        this.peers = peers;
        this.requests = requests;
        this.ticker = ticker;
        this.requestTimeout = requestTimeout;
        this.mayRequest = mayRequest;
        this.wantsPieces = wantsPieces;
        this.vouched = vouched;
        this.misbehaviour = misbehaviour;
        this.slow = slow;
        this.self = self;
    }

    // ---------------------------------------------------------------- messages

    void bitfield(Peer p, BitfieldMessage b) {
        if (p.bitfieldReceived) {
            misbehaviour.misbehaved(p, "sent a second BITFIELD");
            return;
        }
        p.bitfieldReceived = true;
        Bitfield bits = b.toBitfield();
        for (int i = bits.nextSet(0); i >= 0; i = bits.nextSet(i + 1)) {
            p.has.set(i);
        }
        requests.peerBitfield(p.id, bits);
        updateInterest(p);
        pump(p);
    }

    void have(Peer p, Have have) {
        // A HAVE of a piece the peer already announced changes nothing (idempotent); out of range never decodes.
        p.has.set(have.piece());
        requests.peerHave(p.id, have.piece());
        if (!p.amInterested && !requests.hasPiece(have.piece())) {
            updateInterest(p);
        }
        pump(p);
    }

    void choked(Peer p) {
        p.peerChoking = true;
        p.chokeHeard = true;
    }

    void unchoked(Peer p) {
        p.peerChoking = false;
        p.chokeHeard = true;
        pump(p);
    }

    void rejected(Peer p, Reject r) {
        p.unask(r.piece());
        if (requests.requestFailed(p.id, r.piece())) {
            pumpAllExcept(p.id);
        }
    }

    /** {@code p} holds every piece now (a checked {@code DONE}). */
    void holdsAll(Peer p, int pieceCount) {
        requests.peerBitfield(p.id, Bitfield.full(pieceCount));
        updateInterest(p);
        pump(p);
    }

    // ---------------------------------------------------------------- requests

    /**
     * Asks {@code p} for what the scheduler picks for it, if it unchokes this node and requests may go out. Once,
     * before the peer has said {@code CHOKE} or {@code UNCHOKE}, the first requests go right behind this node's
     * {@code INTERESTED} instead of waiting for its {@code UNCHOKE}: the peer decides them after the
     * {@code INTERESTED} ({@link PieceServer}), which unchokes this node at once when it has a free slot. That saves
     * the two trips of the {@code UNCHOKE} and the {@code REQUEST} at the start of every connection; a peer that
     * still chokes answers {@code REJECT}, and the pieces are asked elsewhere.
     */
    void pump(Peer p) {
        if (!mayRequest.getAsBoolean() || (p.peerChoking && (p.chokeHeard || p.askedBeforeUnchoke))) {
            return;
        }
        int[] next = vouchedOnly(p.id, requests.nextRequests(p.id));
        if (next.length == 0) {
            return;
        }
        if (p.peerChoking) {
            p.askedBeforeUnchoke = true;
        }
        if (!p.amInterested) {
            p.amInterested = true;
            p.link.write(Interested.INSTANCE);
        }
        long now = ticker.read();
        for (int piece : next) {
            p.asked.set(piece);
            p.askedAt.put(piece, now);
            p.link.write(new Request(piece));
        }
        p.link.flush();
    }

    /**
     * Drops from {@code picked} the pieces nobody vouched for (endgame duplicates can pick them): such a piece
     * could not be checked on arrival, so it is not asked for.
     */
    private int[] vouchedOnly(String peer, int[] picked) {
        int kept = 0;
        for (int piece : picked) {
            if (vouched.test(piece)) {
                picked[kept++] = piece;
            } else {
                requests.requestFailed(peer, piece);
            }
        }
        return kept == picked.length ? picked : Arrays.copyOf(picked, kept);
    }

    void pumpAll() {
        for (Peer p : peers.values()) {
            pump(p);
        }
    }

    void pumpAllExcept(String id) {
        for (Peer p : peers.values()) {
            if (!p.id.equals(id)) {
                pump(p);
            }
        }
    }

    /** Tells {@code p} whether this node is interested, when that changed. */
    void updateInterest(Peer p) {
        boolean want = wantsPieces.getAsBoolean() && requests.isInteresting(p.id);
        if (want != p.amInterested) {
            p.amInterested = want;
            p.link.send(want ? Interested.INSTANCE : NotInterested.INSTANCE);
        }
    }

    /** Requests outstanding to all peers. */
    private int outstandingRequests() {
        int n = 0;
        for (Peer p : peers.values()) {
            n += p.askedAt.size();
        }
        return n;
    }

    /**
     * Requests unanswered for the request timeout are given up: requested elsewhere first (as after a
     * {@code REJECT}) and cancelled at the peer; a {@code PIECE} that still comes is dropped. Logged once per peer.
     */
    void expireRequests() {
        long now = ticker.read();
        long timeout = requestTimeout.toNanos();
        boolean any = false;
        for (Peer p : List.copyOf(peers.values())) {
            List<Integer> expired = null;
            for (Map.Entry<Integer, Long> e : p.askedAt.entrySet()) {
                if (now - e.getValue() >= timeout) {
                    (expired == null ? expired = new ArrayList<>() : expired).add(e.getKey());
                }
            }
            if (expired == null) {
                continue;
            }
            if (p.requestTimeouts == 0) {
                LOG.warn("{}: {} did not answer requests for pieces {} within {} ms; they are requested elsewhere"
                        + " ({} requests were outstanding to it, {} to all peers; logged once per peer)", self.get(),
                        p, expired, requestTimeout.toMillis(), p.askedAt.size(), outstandingRequests());
            }
            for (int piece : expired) {
                p.requestTimeouts++;
                p.unask(piece);
                requests.requestFailed(p.id, piece);
                // Still queued at the peer, it is taken out (answered REJECT) instead of sent only to be dropped here.
                p.link.write(new Cancel(piece));
            }
            p.link.flush();
            any = true;
            if (p.requestTimeouts >= BanList.THRESHOLD) {
                // A peer that claims pieces and never sends them would be asked again and again: drop it, so its
                // pieces count as nobody's (after DroppedPeers' grace) and are fetched from S3 if no one else has them.
                // An honest peer on a congested link looks the same for a while, so it is dropped for a rest only.
                slow.misbehaved(p, "did not answer " + p.requestTimeouts + " piece requests within "
                        + requestTimeout.toMillis() + " ms");
            }
        }
        if (any) {
            pumpAll();
        }
    }
}
