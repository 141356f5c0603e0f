package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.spi.cluster.PieceSelector;
import io.s3broadcast.spi.cluster.RequestScheduler;
import io.s3broadcast.spi.cluster.SourcePieces;
import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.Have;
import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.p2p.protocol.Reject;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Phase 2's requests on fake time with fake peers: who is asked for what, and what happens when no answer comes. */
class PieceExchangeTest {

    private static final int PIECES = 4;
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final AtomicBoolean mayRequest = new AtomicBoolean(true);
    private final BitSet unvouched = new BitSet();
    private final List<String> misbehaved = new ArrayList<>();
    private final List<String> slow = new ArrayList<>();
    private RequestScheduler requests;
    private PieceExchange exchange;

    private void exchange(int maxRequestsPerPeer) {
        requests = RequestScheduler.builder(PIECES).selector(PieceSelector.randomizedRarest(new Random(3)))
                .source(SourcePieces.NONE).maxRequestsPerPeer(maxRequestsPerPeer).build();
        exchange = new PieceExchange(peers, requests, time.ticker(), TIMEOUT, mayRequest::get, () -> true,
                piece -> !unvouched.get(piece), (p, what) -> misbehaved.add(p.id + " " + what),
                (p, what) -> slow.add(p.id + " " + what), () -> "self");
    }

    /** A connected peer holding {@code pieces}, its bitfield received. */
    private Peer peer(String id, int... pieces) {
        Peer p = FakeLink.peer(id, PIECES);
        peers.put(id, p);
        requests.peerBitfield(id, new io.s3broadcast.spi.Bitfield(PIECES));
        exchange.bitfield(p, BitfieldMessage.of(PIECES, i -> java.util.Arrays.stream(pieces).anyMatch(x -> x == i)));
        return p;
    }

    @Test
    void theFirstRequestsGoRightBehindTheInterestedOnceBeforeTheUnchoke() {
        exchange(2);
        Peer a = peer("a", 0, 1, 2);
        assertEquals(List.of(MessageType.INTERESTED, MessageType.REQUEST, MessageType.REQUEST), FakeLink.of(a).types(),
                "the peer has said neither CHOKE nor UNCHOKE: requests right behind the INTERESTED");
        List<Integer> early = FakeLink.of(a).requested();
        for (int piece : early) {
            exchange.rejected(a, new Reject(piece)); // it still chokes this node
        }
        exchange.have(a, new Have(3));
        assertEquals(early, FakeLink.of(a).requested(), "asked once before its UNCHOKE, not again");
        exchange.unchoked(a);
        assertEquals(4, FakeLink.of(a).requested().size(), "unchoked: asked again");
    }

    @Test
    void aPeerThatUnchokesThisNodeIsAskedForWhatItHolds() {
        exchange(2);
        Peer a = FakeLink.peer("a", PIECES);
        peers.put("a", a);
        exchange.choked(a); // it said CHOKE before its BITFIELD was handled
        requests.peerBitfield("a", new io.s3broadcast.spi.Bitfield(PIECES));
        exchange.bitfield(a, BitfieldMessage.of(PIECES, i -> i <= 2));
        assertEquals(List.of(MessageType.INTERESTED), FakeLink.of(a).types(), "interested, but choked: no request yet");
        exchange.unchoked(a);
        List<Integer> asked = FakeLink.of(a).requested();
        assertEquals(2, asked.size(), "at most maxRequestsPerPeer outstanding");
        assertTrue(asked.stream().allMatch(i -> i <= 2));
        assertEquals(2, a.asked.cardinality());
        assertEquals(2, a.askedAt.size());
    }

    @Test
    void nothingIsRequestedWhileRequestsMayNotGoOutNorAPieceNobodyVouchedFor() {
        exchange(4);
        mayRequest.set(false);
        Peer a = peer("a", 0, 1);
        exchange.unchoked(a);
        assertEquals(List.of(), FakeLink.of(a).requested());
        mayRequest.set(true);
        unvouched.set(1);
        exchange.pump(a);
        assertEquals(List.of(0), FakeLink.of(a).requested());
    }

    @Test
    void aRequestUnansweredForTheTimeoutGoesToAnotherPeer() {
        exchange(2);
        Peer a = peer("a", 0, 1);
        Peer b = peer("b", 0, 1);
        exchange.unchoked(a);
        exchange.unchoked(b);
        assertEquals(2, FakeLink.of(a).requested().size());
        assertEquals(List.of(), FakeLink.of(b).requested(), "both pieces are asked of a already");
        exchange.choked(a);
        time.advance(TIMEOUT.minusMillis(1));
        exchange.expireRequests();
        assertEquals(List.of(), FakeLink.of(b).requested(), "not yet");
        time.advance(Duration.ofMillis(1));
        exchange.expireRequests();
        assertEquals(List.of(0, 1), FakeLink.of(b).requested().stream().sorted().toList());
        assertTrue(a.asked.isEmpty(), "a late PIECE from a is dropped");
        assertEquals(2, FakeLink.of(a).types().stream().filter(t -> t == MessageType.CANCEL).count(),
                "and both are cancelled at a, so that it does not send them (still queued there) at all");
        assertEquals(2, a.requestTimeouts);
        assertEquals(List.of(), misbehaved);
    }

    @Test
    void aPeerThatLeavesThreeRequestsUnansweredIsDroppedAsSlowNotAsMisbehaving() {
        exchange(3);
        Peer a = peer("a", 0, 1, 2);
        exchange.unchoked(a);
        time.advance(TIMEOUT);
        exchange.expireRequests();
        assertEquals(List.of("a did not answer 3 piece requests within 1000 ms"), slow, "it rests (RestingPeers)");
        assertEquals(List.of(), misbehaved, "not banned: an honest peer on a congested link looks the same");
    }

    @Test
    void aRejectedPieceIsAskedOfAnotherPeer() {
        exchange(1);
        Peer a = peer("a", 2);
        Peer b = peer("b", 2);
        exchange.unchoked(a);
        exchange.unchoked(b);
        assertEquals(List.of(2), FakeLink.of(a).requested());
        assertEquals(List.of(), FakeLink.of(b).requested());
        exchange.rejected(a, new Reject(2));
        assertEquals(List.of(2), FakeLink.of(b).requested());
        assertTrue(a.asked.isEmpty());
    }

    @Test
    void aHaveOfAMissingPieceMakesThisNodeInterested() {
        exchange(2);
        Peer a = peer("a");
        assertEquals(List.of(), FakeLink.of(a).types(), "nothing to want from it");
        exchange.have(a, new Have(3));
        assertEquals(List.of(MessageType.INTERESTED, MessageType.REQUEST), FakeLink.of(a).types(),
                "interested, and the first request right behind it");
        assertTrue(a.has.get(3));
    }

    @Test
    void aSecondBitfieldIsMisbehaviour() {
        exchange(2);
        Peer a = peer("a", 0);
        exchange.bitfield(a, BitfieldMessage.of(PIECES, i -> true));
        assertEquals(List.of("a sent a second BITFIELD"), misbehaved);
    }
}
