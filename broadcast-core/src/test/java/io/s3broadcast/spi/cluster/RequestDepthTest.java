package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.spi.cluster.RequestScheduler.PeerRequest;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pipeline depth per peer, and how the request scheduler uses measured rates, on fake time. */
class RequestDepthTest {

    private final ManualScheduler time = new ManualScheduler();

    @Test
    void adaptiveDepthCoversTheQueueTimeOfTheRateWithinFloorAndCap() {
        RequestDepth d = RequestDepth.adaptive(Duration.ofSeconds(1), 2, 4, 16);
        assertThat(d.depth(0, false)).isEqualTo(4);
        assertThat(d.depth(0, true)).isEqualTo(2);
        assertThat(d.depth(2.4, true)).isEqualTo(3);
        assertThat(d.depth(9.5, true)).isEqualTo(10);
        assertThat(d.depth(100, true)).isEqualTo(16);
        assertThat(RequestDepth.adaptive(Duration.ofMillis(500), 2, 1, 16).depth(0, false)).isEqualTo(2);
        assertThat(RequestDepth.fixed(8).depth(1000, true)).isEqualTo(8);
        assertThatThrownBy(() -> RequestDepth.adaptive(Duration.ZERO, 2, 2, 8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RequestDepth.adaptive(Duration.ofSeconds(1), 4, 4, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void depthGrowsWithAFastPeersRateAndShrinksWhenItSlows() {
        RequestScheduler r = RequestScheduler.builder(1000).ticker(time.ticker()).maxRequestsPerPeer(16)
                .depth(RequestDepth.adaptive(Duration.ofSeconds(1), 2, 2, 16)).rateWindow(Duration.ofSeconds(5)).build();
        r.peerBitfield("x", Bitfield.full(1000));
        assertThat(r.nextRequests("x")).hasSize(2); // unmeasured: the initial depth
        assertThat(r.depth("x")).isEqualTo(2);
        // x delivers 10 pieces a second: the depth follows to 10.
        deliver(r, "x", 10, Duration.ofSeconds(5));
        assertThat(r.piecesPerSecond("x")).isBetween(9.0, 11.0);
        assertThat(r.depth("x")).isBetween(10, 11);
        assertThat(r.outstanding("x")).isEqualTo(r.depth("x"));
        // x slows to one piece a second: once the window forgets the fast seconds the depth is the floor.
        deliver(r, "x", 1, Duration.ofSeconds(6));
        assertThat(r.depth("x")).isEqualTo(2);
        assertThat(r.nextRequests("x")).isEmpty(); // more are outstanding than the depth: none is added
    }

    @Test
    void theDepthNeverExceedsMaxRequestsPerPeerTheMostAPeerServesUsAtOnce() {
        RequestScheduler r = RequestScheduler.builder(1000).ticker(time.ticker()).maxRequestsPerPeer(4)
                .depth(RequestDepth.adaptive(Duration.ofSeconds(1), 2, 2, 64)).build();
        r.peerBitfield("x", Bitfield.full(1000));
        deliver(r, "x", 50, Duration.ofSeconds(3));
        assertThat(r.depth("x")).isEqualTo(4);
        assertThat(r.outstanding("x")).isEqualTo(4);
    }

    @Test
    void aSlowPeerLeavesThePiecesAFasterPeerHoldsToItAndAsksFirstForWhatOnlyItHolds() {
        RequestScheduler r = RequestScheduler.builder(100).ticker(time.ticker()).maxRequestsPerPeer(8)
                .depth(RequestDepth.adaptive(Duration.ofSeconds(1), 2, 2, 8)).build();
        Bitfield fastHas = new Bitfield(100);
        for (int p = 0; p < 80; p++) {
            fastHas.set(p);
        }
        r.peerBitfield("fast", fastHas);
        r.peerBitfield("slow", Bitfield.full(100));
        // Measure both: fast delivers 8 pieces a second, slow 1.
        for (int s = 0; s < 4; s++) {
            for (int i = 0; i < 8; i++) {
                time.advance(Duration.ofMillis(125));
                storeOne(r, "fast");
                if (i == 7) {
                    storeOne(r, "slow");
                }
            }
        }
        int[] next = r.nextRequests("slow");
        assertThat(next).isNotEmpty();
        assertThat(java.util.Arrays.stream(next).boxed().toList()).allMatch(p -> p >= 80); // 80-99: only slow holds them
    }

    @Test
    void endgameDuplicatesAndTheFirstArrivalCancelsTheOthers() {
        RequestScheduler r = RequestScheduler.builder(3).ticker(time.ticker()).have(bits(3, 0))
                .depth(RequestDepth.adaptive(Duration.ofSeconds(1), 2, 2, 8)).build();
        r.peerBitfield("x", Bitfield.full(3));
        r.peerBitfield("y", Bitfield.full(3));
        assertThat(r.nextRequests("x")).containsExactlyInAnyOrder(1, 2);
        assertThat(r.isEndgame()).isTrue();
        assertThat(r.nextRequests("y")).containsExactlyInAnyOrder(1, 2); // duplicates in endgame
        time.advance(Duration.ofMillis(200));
        assertThat(r.pieceStored(1, "y")).containsExactly(new PeerRequest("x", 1));
        assertThat(r.pieceStored(2, "x")).containsExactly(new PeerRequest("y", 2));
        assertThat(r.isComplete()).isTrue();
        assertThat(r.outstanding("x")).isZero();
        assertThat(r.outstanding("y")).isZero();
    }

    @Test
    void endgameDuplicatesFirstThePieceOutstandingAtTheSlowestPeer() {
        RequestScheduler r = RequestScheduler.builder(11).ticker(time.ticker()).have(bits(11, 0, 1))
                .depth(RequestDepth.fixed(1)).build();
        r.peerBitfield("fast", bits(11, 2, 3, 4, 6));
        r.peerBitfield("slow", bits(11, 5, 7));
        r.peerBitfield("third", bits(11, 6, 7, 8, 9, 10));
        assertThat(r.nextRequests("slow")).containsExactly(5);
        for (int i = 0; i < 3; i++) { // fast and third deliver 3 pieces each in the second slow delivers 1
            assertThat(r.nextRequests("fast")).containsExactly(2 + i);
            assertThat(r.nextRequests("third")).containsExactly(8 + i);
            time.advance(Duration.ofMillis(250));
            r.pieceStored(2 + i, "fast");
            r.pieceStored(8 + i, "third");
        }
        assertThat(r.nextRequests("fast")).containsExactly(6);
        time.advance(Duration.ofMillis(250));
        r.pieceStored(5, "slow");
        assertThat(r.nextRequests("slow")).containsExactly(7);
        assertThat(r.isEndgame()).isTrue();
        // third may duplicate the piece outstanding at the slow peer, not the one at the peer as fast as itself.
        assertThat(r.nextRequests("third")).containsExactly(7);
        assertThat(r.pieceStored(7, "third")).containsExactly(new PeerRequest("slow", 7));
    }

    /** {@code peer} delivers {@code perSecond} pieces a second for {@code span}, kept asked to its depth. */
    private void deliver(RequestScheduler r, String peer, int perSecond, Duration span) {
        long steps = span.toMillis() * perSecond / 1000;
        for (long i = 0; i < steps; i++) {
            time.advance(Duration.ofMillis(1000 / perSecond));
            r.nextRequests(peer);
            storeOne(r, peer);
            r.nextRequests(peer);
        }
    }

    private static void storeOne(RequestScheduler r, String peer) {
        int[] out = r.outstandingPieces(peer);
        if (out.length == 0) {
            out = r.nextRequests(peer);
        }
        List<PeerRequest> cancels = r.pieceStored(out[0], peer);
        assertThat(cancels).isEmpty();
    }

    private static Bitfield bits(int size, int... pieces) {
        Bitfield b = new Bitfield(size);
        for (int p : pieces) {
            b.set(p);
        }
        return b;
    }
}
