package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.cluster.RequestScheduler.PeerRequest;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceRun;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RequestSchedulerTest {

    @Test
    void heldIsTheInitialBitfieldThenEveryStoredPiece() {
        RequestScheduler r = RequestScheduler.builder(4).have(bits(4, 1)).build();
        assertThat(r.held()).as("present when it was built").isEqualTo(bits(4, 1));
        r.pieceStored(3, "x");
        Bitfield held = r.held();
        assertThat(held).isEqualTo(bits(4, 1, 3));
        r.pieceStored(0);
        assertThat(held).as("a copy").isEqualTo(bits(4, 1, 3));
    }

    @Test
    void availabilityFollowsBitfieldsHavesAndDepartures() {
        RequestScheduler r = RequestScheduler.builder(8).build();
        r.peerBitfield("x", bits(8, 0, 1, 2));
        r.peerBitfield("y", bits(8, 1, 2));
        r.peerHave("y", 5);
        r.peerHave("y", 5);
        assertThat(counts(r)).containsExactly(1, 2, 2, 0, 0, 1, 0, 0);
        r.peerBitfield("x", bits(8, 7)); // a second bitfield replaces the first
        assertThat(counts(r)).containsExactly(0, 1, 1, 0, 0, 1, 0, 1);
        r.peerLeft("y");
        assertThat(counts(r)).containsExactly(0, 0, 0, 0, 0, 0, 0, 1);
    }

    @Test
    void requestsOnlyPiecesThePeerHasThisNodeLacksAndNobodyIsAskedFor() {
        RequestScheduler r = RequestScheduler.builder(6).have(bits(6, 0)).maxRequestsPerPeer(10).build();
        r.peerBitfield("x", bits(6, 0, 1, 2, 3));
        r.peerBitfield("y", bits(6, 0, 1, 2, 3, 4));
        assertThat(r.nextRequests("x")).containsExactly(1, 2, 3);
        // 1-3 are requested from x: y is asked only for 4; nothing for 5, which nobody has.
        assertThat(r.nextRequests("y")).containsExactly(4);
        assertThat(r.nextRequests("nobody")).isEmpty();
    }

    @Test
    void aFrontWindowAsksForTheFirstMissingPiecesBeforeRarerOnes() {
        RequestScheduler r = RequestScheduler.builder(12).have(bits(12, 0, 1)).frontWindow(3).maxRequestsPerPeer(4)
                .build();
        r.peerBitfield("x", Bitfield.full(12));
        r.peerBitfield("y", bits(12, 2, 3, 4, 5, 6, 7));
        // Window [2, 5) first (rarest inside it: all held by both), then 8-11, rarer (x alone) than 5-7.
        assertThat(r.nextRequests("x")).containsExactly(2, 3, 4, 8);
        r.pieceStored(2, "x");
        r.pieceStored(3, "x");
        // The front moved to 4 (asked for): window [4, 7), of which y holds 5 and 6 unasked.
        assertThat(r.nextRequests("y")).containsExactly(5, 6, 7);
    }

    @Test
    void onceEveryMissingPieceIsInTheFrontWindowTheLowestAreAskedForFirst() {
        RequestScheduler r = RequestScheduler.builder(12).have(bits(12, 0, 1, 2, 3, 4, 5, 6, 7)).frontWindow(6)
                .maxRequestsPerPeer(2).build();
        r.peerBitfield("x", Bitfield.full(12));
        r.peerBitfield("y", bits(12, 8, 9));
        // Missing 8-11, all in the window [8, 14): 8 and 9, though 10 and 11 are rarer (x alone holds them).
        assertThat(r.nextRequests("x")).containsExactly(8, 9);
    }

    @Test
    void theFrontWindowIsAQuarterOfThePiecesOnlyForASinglePartETag() {
        String md5 = "0123456789abcdef0123456789abcdef";
        ObjectInfo single = new ObjectInfo("b", "k", 1, md5, Optional.empty(), Optional.empty(),
                ObjectInfo.eTagDigest(md5, false, List.of()));
        ObjectInfo multipart = new ObjectInfo("b", "k", 1, md5 + "-2", Optional.empty(), Optional.empty(),
                ObjectInfo.eTagDigest(md5 + "-2", false, List.of(1L, 1L)));
        ObjectInfo kms = new ObjectInfo("b", "k", 1, md5, Optional.empty());
        assertThat(RequestSchedulerBuilder.frontWindowFor(single, 256)).isEqualTo(64);
        assertThat(RequestSchedulerBuilder.frontWindowFor(single, 3)).isEqualTo(1);
        assertThat(RequestSchedulerBuilder.frontWindowFor(single, 0)).isZero();
        assertThat(RequestSchedulerBuilder.frontWindowFor(multipart, 256)).isZero();
        assertThat(RequestSchedulerBuilder.frontWindowFor(kms, 256)).isZero();
    }

    @Test
    void rarestFirstAcrossPeers() {
        RequestScheduler r = RequestScheduler.builder(5).maxRequestsPerPeer(2).build();
        r.peerBitfield("x", Bitfield.full(5));
        r.peerBitfield("y", bits(5, 0, 1, 2));
        r.peerBitfield("z", bits(5, 0, 1));
        // Availability: 0:3 1:3 2:2 3:1 4:1
        assertThat(r.nextRequests("x")).containsExactly(3, 4);
        assertThat(r.nextRequests("y")).containsExactly(2, 0);
    }

    @Test
    void perPeerBudgetLimitsOutstandingRequests() {
        RequestScheduler r = RequestScheduler.builder(10).maxRequestsPerPeer(3).build();
        r.peerBitfield("x", Bitfield.full(10));
        assertThat(r.nextRequests("x")).containsExactly(0, 1, 2);
        assertThat(r.nextRequests("x")).isEmpty();
        assertThat(r.outstanding("x")).isEqualTo(3);
        assertThat(r.pieceStored(1, "x")).isEmpty();
        assertThat(r.nextRequests("x")).containsExactly(3);
        assertThat(r.outstandingPieces("x")).containsExactly(0, 2, 3);
    }

    @Test
    void aFailedRequestMakesThePieceRequestableAgain() {
        RequestScheduler r = RequestScheduler.builder(3).maxRequestsPerPeer(1).build();
        r.peerBitfield("x", bits(3, 0));
        r.peerBitfield("y", bits(3, 0));
        assertThat(r.nextRequests("x")).containsExactly(0);
        assertThat(r.nextRequests("y")).isEmpty();
        assertThat(r.requestFailed("x", 0)).isTrue();
        assertThat(r.requestFailed("x", 0)).isFalse();
        assertThat(r.nextRequests("y")).containsExactly(0);
    }

    @Test
    void aDepartingPeersRequestsAreDropped() {
        RequestScheduler r = RequestScheduler.builder(3).build();
        r.peerBitfield("x", Bitfield.full(3));
        r.peerBitfield("y", Bitfield.full(3));
        assertThat(r.nextRequests("x")).containsExactly(0, 1, 2);
        r.peerLeft("x");
        assertThat(r.outstanding("x")).isZero();
        assertThat(r.nextRequests("y")).containsExactly(0, 1, 2);
    }

    @Test
    void overlapRulePiecesThatTheS3FetchWillDeliverAreNotRequested() {
        // This node's S3 list holds pieces 10-19; 10-13 are in flight, 14-19 queued.
        WorkList s3 = new WorkList(20, List.of(new PieceRun(10, 20)));
        assertThat(s3.poll(4)).isEqualTo(new PieceRun(10, 14));
        RequestScheduler r = RequestScheduler.builder(20).source(s3).maxRequestsPerPeer(30).build();
        r.peerBitfield("x", Bitfield.full(20));
        int[] asked = r.nextRequests("x");
        assertThat(asked).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(r.isEndgame()).isFalse(); // 14-19 are queued, not in flight
        // The S3 fetch takes the rest: now every missing piece is in flight, and x may duplicate them.
        assertThat(s3.poll(6)).isEqualTo(new PieceRun(14, 20));
        assertThat(r.isEndgame()).isTrue();
        assertThat(r.nextRequests("x")).containsExactly(10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
        // S3 delivers 10 first: the duplicate request to x is cancelled.
        s3.pieceStored(10);
        assertThat(r.pieceStored(10)).containsExactly(new PeerRequest("x", 10));
    }

    @Test
    void endgameDuplicatesTheLastPiecesAndReportsWhatToCancel() {
        RequestScheduler r = RequestScheduler.builder(4).have(bits(4, 0, 1)).maxRequestsPerPeer(4).build();
        r.peerBitfield("x", Bitfield.full(4));
        r.peerBitfield("y", Bitfield.full(4));
        assertThat(r.isEndgame()).isFalse();
        assertThat(r.nextRequests("x")).containsExactly(2, 3);
        assertThat(r.isEndgame()).isTrue();
        assertThat(r.nextRequests("y")).containsExactly(2, 3);
        assertThat(r.nextRequests("y")).isEmpty(); // never asks one peer twice for a piece

        assertThat(r.pieceStored(2, "x")).containsExactly(new PeerRequest("y", 2));
        assertThat(r.pieceStored(3, "y")).containsExactly(new PeerRequest("x", 3));
        assertThat(r.outstanding("x")).isZero();
        assertThat(r.outstanding("y")).isZero();
        assertThat(r.isComplete()).isTrue();
        assertThat(r.isEndgame()).isFalse();
    }

    @Test
    void endgamePrefersPiecesWithFewestOutstandingRequests() {
        RequestScheduler r = RequestScheduler.builder(3).maxRequestsPerPeer(1).build();
        for (String peer : List.of("x", "y", "z", "w", "v")) {
            r.peerBitfield(peer, Bitfield.full(3));
        }
        assertThat(r.nextRequests("x")).containsExactly(0);
        assertThat(r.nextRequests("y")).containsExactly(1);
        assertThat(r.nextRequests("z")).containsExactly(2);
        assertThat(r.isEndgame()).isTrue();
        // Each piece is requested once: w duplicates the first in selector order.
        assertThat(r.nextRequests("w")).containsExactly(0);
        // Now 0 is requested twice, 1 and 2 once: v duplicates 1.
        assertThat(r.nextRequests("v")).containsExactly(1);

        assertThat(r.pieceStored(0, "w")).containsExactly(new PeerRequest("x", 0));
        assertThat(r.pieceStored(1, null)).containsExactly(new PeerRequest("v", 1), new PeerRequest("y", 1));
        assertThat(r.outstanding("z")).isEqualTo(1);
    }

    @Test
    void endgameDuplicatesOnlyToAPeerTwiceAsFastAsTheOneAsked() {
        FakeTicker ticker = new FakeTicker();
        RequestScheduler r = RequestScheduler.builder(6).maxRequestsPerPeer(1).ticker(ticker).build();
        for (String peer : List.of("x", "y", "z", "w")) {
            r.peerBitfield(peer, Bitfield.full(6));
        }
        assertThat(r.nextRequests("x")).containsExactly(0);
        assertThat(r.nextRequests("y")).containsExactly(1);
        assertThat(r.nextRequests("z")).containsExactly(2);
        for (int piece = 2; piece < 5; piece++) {
            ticker.advance(Duration.ofMillis(500));
            r.pieceStored(piece, "z");
            if (piece < 4) {
                assertThat(r.nextRequests("z")).containsExactly(piece + 1);
            }
        }
        r.pieceStored(0, "x");
        r.pieceStored(1, "y");
        // In 1.5 s x and y delivered one piece each, z three.
        assertThat(r.nextRequests("x")).containsExactly(5);
        assertThat(r.isEndgame()).isTrue();
        assertThat(r.nextRequests("y")).isEmpty(); // as fast as x: a duplicate would only share the download
        assertThat(r.nextRequests("w")).isEmpty(); // not measured
        assertThat(r.nextRequests("z")).containsExactly(5);
    }

    @Test
    void noEndgameWhileAMissingPieceIsNotInFlight() {
        RequestScheduler r = RequestScheduler.builder(3).build();
        r.peerBitfield("x", bits(3, 0, 1)); // nobody has piece 2
        r.peerBitfield("y", bits(3, 0, 1));
        assertThat(r.nextRequests("x")).containsExactly(0, 1);
        assertThat(r.isEndgame()).isFalse();
        assertThat(r.nextRequests("y")).isEmpty();
    }

    @Test
    void interestedInAPeerWithAPieceThisNodeLacks() {
        RequestScheduler r = RequestScheduler.builder(3).have(bits(3, 0)).build();
        r.peerBitfield("x", bits(3, 0));
        assertThat(r.isInteresting("x")).isFalse();
        r.peerHave("x", 2);
        assertThat(r.isInteresting("x")).isTrue();
        r.pieceStored(2);
        assertThat(r.isInteresting("x")).isFalse();
        assertThat(r.isInteresting("unknown")).isFalse();
        assertThat(r.missing()).isEqualTo(1);
        assertThat(r.hasPiece(2)).isTrue();
    }

    @Test
    void randomizedRarestSpreadsPeersOverEquallyRarePieces() {
        RequestScheduler r = RequestScheduler.builder(100).selector(PieceSelector.randomizedRarest(new java.util.Random(9)))
                .maxRequestsPerPeer(1).build();
        r.peerBitfield("x", Bitfield.full(100));
        int first = r.nextRequests("x")[0];
        RequestScheduler again = RequestScheduler.builder(100)
                .selector(PieceSelector.randomizedRarest(new java.util.Random(9))).maxRequestsPerPeer(1).build();
        again.peerBitfield("x", Bitfield.full(100));
        assertThat(again.nextRequests("x")).containsExactly(first);
    }

    private static int[] counts(RequestScheduler r) {
        int[] c = new int[8];
        for (int p = 0; p < 8; p++) {
            c[p] = r.availability(p);
        }
        return c;
    }

    private static Bitfield bits(int size, int... pieces) {
        Bitfield b = new Bitfield(size);
        for (int p : pieces) {
            b.set(p);
        }
        return b;
    }
}
