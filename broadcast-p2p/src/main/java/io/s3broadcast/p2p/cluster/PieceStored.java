package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.cluster.HaveBatcher;
import io.s3broadcast.spi.cluster.RequestScheduler;
import io.s3broadcast.p2p.protocol.Cancel;
import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.Have;
import io.s3broadcast.p2p.protocol.NotInterested;
import io.s3broadcast.spi.Bitfield;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * A piece is in the store, from S3 or from a peer (paper 000, sec. 4.2): the work list marks it, requests for it
 * still outstanding to other peers (endgame duplicates) are cancelled, every peer hears {@code HAVE} (after the
 * {@code DIGESTS} vouching for it when this node read it from S3) and {@code NOT_INTERESTED} when it has nothing
 * more this node wants, the works left are advertised; the last piece completes the run unless pieces are under a
 * check from S3 (they may turn out wrong); a piece from S3 keeps phase 1 going and, once phase 2 is open or in the
 * endgame, sends requests. On the run's loop only.
 *
 * <p>What a stored piece sends is written without a flush: the {@code HAVE}s go through a {@link HaveBatcher},
 * whose batch (every piece stored in the loop's turn) writes each peer its {@code HAVE}s and flushes every peer
 * once, which also sends the {@code DIGESTS}, {@code CANCEL} and {@code NOT_INTERESTED} written before. Whatever
 * a peer checks against the pieces announced ({@code WORKS_LEFT}, {@code DONE}) must call {@link #flushHaves()}
 * first, so no {@code HAVE} is overtaken.
 *
 * <p>The pieces this node has <em>announced</em> ({@link #announced()}: the request scheduler's, present when the run
 * was made or passed through {@link #stored}) are what a new peer's greeting and phase 1's start go by, not the
 * store's bitfield: a piece the store completed whose {@code stored} is still queued on the loop has no {@code HAVE}
 * and no {@code DIGESTS} out yet. Counted off the works left before that ({@code WORKS_LEFT} is only checked against
 * the pieces announced, and a piece may be written behind it on the same connection), it made peers see no works
 * left and no holder, and read it from S3 again as an orphan (docs/results.md, session 26).
 */
final class PieceStored {

    /** The signed {@code DIGESTS} announcing this node's read of a piece from S3. */
    @FunctionalInterface
    interface Announcer {
        Digests announce(int piece, byte[] own);
    }

    private final Map<String, Peer> peers;
    private final RequestScheduler requests;
    private final ShareFetcher phase1;
    private final PieceExchange exchange;
    private final BooleanSupplier closing;
    private final IntFunction<byte[]> ownRead;
    private final Announcer announcer;
    private final BooleanSupplier checksIdle;
    private final Runnable complete;
    private final HaveBatcher haves;

    /**
     * @param peers the run's connected peers, by id
     * @param closing whether the run is stopping: nothing more is announced
     * @param ownRead this node read a piece from S3: its digest becomes the truth ({@link DigestExchange#ownRead})
     * @param checksIdle whether no piece is under a check from S3 ({@link Disputes#idle})
     * @param complete completes the run ({@link #flushHaves()} is called before)
     * @param haves batches the {@code HAVE}s; its batch is {@link #announce(Map, int[])} to these peers
     */
    PieceStored(Map<String, Peer> peers, RequestScheduler requests, ShareFetcher phase1, PieceExchange exchange,
            BooleanSupplier closing, IntFunction<byte[]> ownRead, Announcer announcer, BooleanSupplier checksIdle,
            Runnable complete, HaveBatcher haves) {
        this.peers = peers;
        this.requests = requests;
        this.phase1 = phase1;
        this.exchange = exchange;
        this.closing = closing;
        this.ownRead = ownRead;
        this.announcer = announcer;
        this.checksIdle = checksIdle;
        this.complete = complete;
        this.haves = haves;
    }

    /**
     * The pieces announced: the request scheduler's ({@link RequestScheduler#held}), which {@link #stored} tells each
     * piece as it writes its {@code HAVE} (a copy).
     */
    Bitfield announced() {
        return requests.held();
    }

    /** One batch of {@code HAVE}s: every peer is written each piece's {@code HAVE}, then flushed once. */
    static void announce(Map<String, Peer> peers, int[] pieces) {
        for (Peer p : peers.values()) {
            for (int piece : pieces) {
                p.link.write(new Have(piece));
            }
            p.link.flush();
        }
    }

    /** Sends the {@code HAVE}s still waiting for the end of the loop's turn now. */
    void flushHaves() {
        haves.flush();
    }

    /** The run is over: {@code HAVE}s pending and to come are dropped. */
    void close() {
        haves.close();
    }

    /** {@code piece} is in the store, from S3 ({@code from} null) or from peer {@code from}. */
    void stored(int piece, String from) {
        if (closing.getAsBoolean()) {
            return;
        }
        byte[] own = from == null ? ownRead.apply(piece) : null;
        phase1.pieceStored(piece, from == null);
        for (RequestScheduler.PeerRequest cancel : requests.pieceStored(piece, from)) {
            Peer p = peers.get(cancel.peer());
            if (p != null) {
                p.unask(piece);
                p.link.write(new Cancel(piece));
            }
        }
        // Signed once (and only when some peer hears it): the same message goes to every peer.
        Digests announced = own != null && !peers.isEmpty() ? announcer.announce(piece, own) : null;
        for (Peer p : peers.values()) {
            // Every peer, done or not: a peer checks our DONE and WORKS_LEFT against the pieces we announced.
            if (announced != null) {
                p.link.write(announced);
            }
            if (p.amInterested && !requests.isInteresting(p.id)) {
                p.amInterested = false;
                p.link.write(NotInterested.INSTANCE);
            }
        }
        // Its HAVE goes out with the others of this turn, and flushes what was written above.
        haves.stored(piece);
        phase1.advertiseWorks();
        if (requests.isComplete()) {
            if (checksIdle.getAsBoolean()) {
                flushHaves();
                complete.run();
            }
            return;
        }
        if (from == null) {
            phase1.pump();
            if (phase1.phase2Allowed() || requests.isEndgame()) {
                exchange.pumpAll();
            }
        }
    }
}
