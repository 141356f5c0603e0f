package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.RendezvousShares;
import io.s3broadcast.spi.cluster.Shares;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.p2p.protocol.GiveWorkRequest;
import io.s3broadcast.p2p.protocol.GiveWorkResponse;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.RangeReads;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Phase 1 of one node on fake time, with fake peers and a fake S3 source: no sockets, no sleeps. */
class ShareFetcherTest {

    private static final int PIECES = 64;
    private static final int PIECE = 1 << 20;
    /** Node 1 of 8: pieces [8, 16), one-piece works over two connections. */
    private static final WorkSizing.Sizing SIZING = WorkSizing.computed(16).size(WorkSizing.Share.of(8, PIECE, 8));

    private final ManualScheduler time = new ManualScheduler();
    private final FakeRun run = new FakeRun();
    private final FakeSource s3 = new FakeSource();

    private ShareFetcher fetcher(Strategy strategy) {
        return new ShareFetcher("a", ClusterPlan.of(strategy), PIECES, new Random(7), run, s3, time, time, time.ticker());
    }

    private static List<PieceRun> share(int index) {
        return ClusterPlan.of(Strategy.STEAL).share(PIECES, 8, index, SIZING);
    }

    @Test
    void theComputedSizingCutsAnEighthOfASixtyFourPieceObjectIntoEightWorksOverTwoConnections() {
        assertThat(SIZING.connections()).isEqualTo(2);
        assertThat(SIZING.workPieces()).isEqualTo(1);
        assertThat(share(1)).hasSize(8).first().isEqualTo(new PieceRun(8, 9));
    }

    @Test
    void beginAdvertisesTheShareAndFetchesItWithTheSizedReads() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        assertThat(run.sent("b")).containsExactly(new WorksLeft(8));
        assertThat(s3.reads).containsExactly(SIZING.reads());
        assertThat(s3.readAll(f)).isEqualTo(8);
        assertThat(run.sent("b")).endsWith(new WorksLeft(0));
    }

    @Test
    void piecesAlreadyStoredAreNotFetchedAgain() {
        Bitfield have = new Bitfield(PIECES);
        have.setRange(8, 12);
        ShareFetcher f = fetcher(Strategy.NON_STEAL);
        f.begin(share(1), SIZING, have);
        assertThat(f.worksLeft()).isEqualTo(4);
        assertThat(s3.readAll(f)).isEqualTo(4);
    }

    @Test
    void anIdleNodeStealsFromALoadedPeerAndFetchesWhatItGets() {
        run.peers.addAll(List.of("b", "c"));
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.worksLeft("b", 6);
        f.worksLeft("c", 1);
        f.begin(share(0), SIZING, new Bitfield(PIECES));
        s3.readAll(f);
        s3.complete(time);

        GiveWorkRequest ask = (GiveWorkRequest) run.last("b");
        assertThat(run.sent("c")).noneMatch(m -> m instanceof GiveWorkRequest);
        // b gives the last three of its six unstarted works: pieces [13, 16).
        List<PieceRun> given = Shares.cut(13, 16, 1);
        assertThat(f.giveWorkAnswered("b", ask.requestId(), given, p -> false)).isTrue();
        assertThat(f.worksLeft()).isEqualTo(3);
        assertThat(s3.reads).hasSize(2);
        assertThat(s3.readAll(f)).isEqualTo(3);
        assertThat(f.piecesStolen()).isEqualTo(3);
    }

    @Test
    void anAnswerThisNodeDidNotAskForIsRefused() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.begin(share(0), SIZING, new Bitfield(PIECES));
        assertThat(f.giveWorkAnswered("b", 99, Shares.cut(13, 16, 1), p -> false)).isFalse();
        assertThat(f.worksLeft()).isEqualTo(8);
    }

    @Test
    void aVictimGivesHalfOfItsUnstartedWorks() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        // Two connections: two works started, six not; three of those go, from the end.
        s3.poll(f, 2);
        f.giveWorkRequested("b", 5, 100);
        List<PeerMessage> sent = run.sent("b");
        GiveWorkResponse answer = (GiveWorkResponse) sent.get(sent.size() - 2);
        assertThat(answer.requestId()).isEqualTo(5);
        assertThat(answer.works()).containsExactlyElementsOf(Shares.cut(13, 16, 1));
        assertThat(f.worksLeft()).isEqualTo(5);
        assertThat(run.last("b")).isEqualTo(new WorksLeft(5));
    }

    @Test
    void nonStealGivesNothingAndNeverSteals() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.NON_STEAL);
        f.worksLeft("b", 8);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        f.giveWorkRequested("b", 1, 100);
        assertThat(((GiveWorkResponse) run.last("b")).works()).isEmpty();
        s3.readAll(f);
        s3.complete(time);
        assertThat(run.sent("b")).noneMatch(m -> m instanceof GiveWorkRequest);
    }

    @Test
    void anUnansweredStealTimesOutAndTheVictimCountsAsRefused() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.worksLeft("b", 4);
        f.begin(List.of(), SIZING, new Bitfield(PIECES));
        assertThat(run.sent("b")).filteredOn(m -> m instanceof GiveWorkRequest).hasSize(1);
        time.advance(Duration.ofMillis(WorkStealing.GIVE_WORK_TIMEOUT_MILLIS - 1));
        assertThat(f.overEverywhere()).isFalse();
        time.advance(Duration.ofMillis(1));
        // Refused: not asked again until it advertises more.
        assertThat(run.sent("b")).filteredOn(m -> m instanceof GiveWorkRequest).hasSize(1);
        f.worksLeft("b", 9);
        assertThat(run.sent("b")).filteredOn(m -> m instanceof GiveWorkRequest).hasSize(2);
    }

    @Test
    void aVictimThatLeavesIsForgottenAndTheThiefMovesOn() {
        run.peers.addAll(List.of("b", "c"));
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.worksLeft("b", 9);
        f.worksLeft("c", 2);
        f.begin(List.of(), SIZING, new Bitfield(PIECES));
        assertThat(run.last("b")).isInstanceOf(GiveWorkRequest.class);
        run.peers.remove("b");
        f.peerLeft("b");
        f.pump();
        assertThat(run.last("c")).isInstanceOf(GiveWorkRequest.class);
    }

    @Test
    void stealOpensPhaseTwoOnlyWhenPhaseOneIsOverEverywhere() {
        run.peers.add("b");
        run.peerWorks.put("b", 3);
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.worksLeft("b", 3);
        f.begin(share(0), SIZING, new Bitfield(PIECES));
        assertThat(f.phase2Allowed()).isFalse();
        s3.readAll(f);
        s3.complete(time);
        assertThat(run.phase2Starts).isZero();
        // b refuses (its works are all under way), then reports an empty list.
        GiveWorkRequest ask = (GiveWorkRequest) run.last("b");
        f.giveWorkAnswered("b", ask.requestId(), List.of(), p -> false);
        assertThat(run.phase2Starts).isZero();
        run.peerWorks.put("b", 0);
        f.worksLeft("b", 0);
        assertThat(run.phase2Starts).isEqualTo(1);
        assertThat(f.phase2Allowed()).isTrue();
        f.checkPhase2Start();
        assertThat(run.phase2Starts).isEqualTo(1);
        assertThat(f.phase1End(time.nanoTime() + 5)).isEqualTo(time.nanoTime());
    }

    @Test
    void overlapExchangesFromTheStart() {
        ShareFetcher f = fetcher(Strategy.OVERLAP);
        f.begin(share(0), SIZING, new Bitfield(PIECES));
        assertThat(f.phase2Allowed()).isTrue();
    }

    @Test
    void orphansTakenAreAdvertisedAndFetched() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.NON_STEAL);
        f.begin(share(0), SIZING, new Bitfield(PIECES));
        s3.readAll(f);
        s3.complete(time);
        assertThat(f.overEverywhere()).isTrue();
        // A dead node's pieces [40, 44), shared out to this node by the orphan rule.
        f.take(Shares.reassign(range(40, 44), new Bitfield(PIECES), 1, SIZING.workPieces()).get(0));
        assertThat(f.overEverywhere()).isFalse();
        assertThat(run.last("b")).isEqualTo(new WorksLeft(4));
        assertThat(s3.reads).hasSize(2);
        assertThat(s3.readAll(f)).isEqualTo(4);
        assertThat(f.piecesStolen()).isZero();
    }

    @Test
    void aFailedFetchPutsItsPiecesBackAndFailsTheRun() {
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.begin(share(0), SIZING, new Bitfield(PIECES));
        s3.poll(f, 2);
        s3.last.completeExceptionally(new IllegalStateException("S3 said no"));
        time.runPending();
        assertThat(run.failure).hasMessage("S3 said no");
        assertThat(f.workList().remaining().piecesInFlight()).isZero();
    }

    @Test
    void aFetchFailedPastRetriesWithPeersGivesTheShareToThievesAndTheNodeGoesOnWithoutS3() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        s3.poll(f, 2);
        f.pieceStored(8, true);
        s3.last.completeExceptionally(new BroadcastException("bytes ... failed after 10 attempts: 503 SlowDown"));
        time.runPending();
        assertThat(run.failure).isNull();
        assertThat(f.lostS3()).isTrue();
        // Seven pieces left, re-cut into one-piece works: b (refused before) sees more works and asks again.
        assertThat(run.last("b")).isEqualTo(new WorksLeft(7));
        f.pump();
        assertThat(s3.reads).hasSize(1);
        f.giveWorkRequested("b", 1, 100);
        GiveWorkResponse first = (GiveWorkResponse) run.sent("b").get(run.sent("b").size() - 2);
        assertThat(first.works()).containsExactlyElementsOf(Shares.cut(12, 16, 1));
        f.giveWorkRequested("b", 2, 100);
        f.giveWorkRequested("b", 3, 100);
        assertThat(f.worksLeft()).isZero();
        assertThat(run.last("b")).isEqualTo(new WorksLeft(0));
        assertThat(s3.reads).hasSize(1);
        // Phase 1 is over once b has fetched them; this node then pulls from b.
        assertThat(f.overEverywhere()).isTrue();
        assertThat(run.phase2Starts).isEqualTo(1);
    }

    @Test
    void worksNoThiefAsksForAreReleasedToTheOrphanRule() {
        ShareFetcher f = failedWithPeerB(Strategy.STEAL, "failed after 10 attempts");
        assertThat(f.worksLeft()).isEqualTo(8);
        time.advance(Duration.ofMillis(WorkStealing.GIVE_WORK_TIMEOUT_MILLIS - 1));
        assertThat(f.worksLeft()).isEqualTo(8);
        time.advance(Duration.ofMillis(1));
        assertThat(f.worksLeft()).isZero();
        assertThat(f.workList().isPending(9)).isFalse();
        assertThat(run.last("b")).isEqualTo(new WorksLeft(0));
        assertThat(run.failure).isNull();
    }

    @Test
    void nonStealReleasesTheShareAtOnce() {
        ShareFetcher f = failedWithPeerB(Strategy.NON_STEAL, "failed after 10 attempts");
        assertThat(f.worksLeft()).isZero();
        assertThat(run.last("b")).isEqualTo(new WorksLeft(0));
        assertThat(run.failure).isNull();
    }

    @Test
    void aShareThatStoresNothingForTheStallTimeIsGivenUpWithPeersButNotAlone() {
        ShareFetcher alone = fetcher(Strategy.NON_STEAL);
        alone.begin(share(1), SIZING, new Bitfield(PIECES));
        time.advance(Duration.ofMillis(3 * S3StallWatch.STALL_MILLIS));
        assertThat(s3.last).isNotDone();
        assertThat(alone.lostS3()).isFalse();
        alone.close();

        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.NON_STEAL);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        CompletableFuture<Void> fetch = s3.last;
        s3.poll(f, 2);
        time.advance(Duration.ofMillis(S3StallWatch.STALL_MILLIS / 2));
        f.pieceStored(8, true);
        time.advance(Duration.ofMillis(S3StallWatch.STALL_MILLIS - 1));
        assertThat(f.lostS3()).isFalse();
        time.advance(Duration.ofMillis(1));
        assertThat(fetch).isCancelled();
        time.runPending();
        assertThat(f.lostS3()).isTrue();
        assertThat(run.failure).isNull();
        assertThat(f.worksLeft()).isZero();
        assertThat(run.last("b")).isEqualTo(new WorksLeft(0));
    }

    @Test
    void aFetchThatEndedJustBeforeTheStallTimerIsNotGivenUp() {
        run.peers.add("b");
        // Due at the stall timer's instant and scheduled before it: the fetch ends, its completion queued on
        // the loop behind the timer, which then finds nothing to cancel.
        time.schedule(() -> s3.last.complete(null), S3StallWatch.STALL_MILLIS, TimeUnit.MILLISECONDS);
        ShareFetcher f = fetcher(Strategy.NON_STEAL);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        CompletableFuture<Void> first = s3.last;
        time.advance(Duration.ofMillis(S3StallWatch.STALL_MILLIS));
        assertThat(first).isCompleted().isNotCancelled();
        assertThat(f.lostS3()).isFalse();
        // The node goes on: the works the ended fetch left are fetched again.
        assertThat(s3.reads).hasSize(2);
        assertThat(s3.readAll(f)).isEqualTo(8);
        assertThat(run.failure).isNull();
    }

    @Test
    void aNodeWithoutS3FailsWhenOrphansAreLeftAndNoPeerCanFetchThem() {
        ShareFetcher f = failedWithPeerB(Strategy.NON_STEAL, "bytes 8-16 failed after 10 attempts: stalled");
        // b still fetches: orphans are its to take, for a while.
        f.take(List.of(new PieceRun(8, 12)));
        time.advance(Duration.ofMillis(S3StallWatch.STALL_MILLIS - 1));
        f.take(List.of(new PieceRun(8, 12)));
        assertThat(run.failure).isNull();
        assertThat(s3.reads).hasSize(1);
        // Nobody fetched them for the stall time: the node fails, naming S3's failure and the pieces.
        time.advance(Duration.ofMillis(1));
        f.take(List.of(new PieceRun(8, 12)));
        assertThat(run.failure).isInstanceOf(BroadcastException.class)
                .hasMessageContaining("failed after 10 attempts").hasMessageContaining("[8, 12)");
    }

    @Test
    void aNodeWithoutS3FailsAtOnceWhenEveryPeerIsDone() {
        run.fetching = false;
        ShareFetcher f = failedWithPeerB(Strategy.NON_STEAL, "failed after 10 attempts");
        f.take(List.of(new PieceRun(9, 10)));
        assertThat(run.failure).hasMessageContaining("no peer is left to fetch them");
    }

    @Test
    void aFailureThatHoldsForEveryNodeStillFailsTheRun() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        s3.last.completeExceptionally(new BroadcastException.ObjectChanged("the object changed", null));
        time.runPending();
        assertThat(run.failure).isInstanceOf(BroadcastException.ObjectChanged.class);
        assertThat(f.lostS3()).isFalse();
    }

    @Test
    void closeCancelsTheFetchAndStopsEverything() {
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.begin(share(0), SIZING, new Bitfield(PIECES));
        CompletableFuture<Void> fetch = s3.last;
        f.close();
        assertThat(fetch).isCancelled();
        time.runPending();
        assertThat(run.failure).isNull();
    }

    @Test
    void aLeavingNodeStopsReadingS3AndHandsItsUnfinishedWorksToThievesThenReleasesTheRest() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.STEAL);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        CompletableFuture<Void> fetch = s3.last;
        s3.poll(f, 2); // pieces 8 and 9 in flight
        f.pieceStored(8, true);
        f.leave(2_000);
        assertThat(fetch).isCancelled();
        assertThat(f.handedOff()).isFalse();
        time.runPending();
        // Piece 9 was in flight: it is handed on with the unstarted ones, as seven one-piece works.
        assertThat(run.last("b")).isEqualTo(new WorksLeft(7));
        f.giveWorkRequested("b", 1, 100);
        GiveWorkResponse given = (GiveWorkResponse) run.sent("b").get(run.sent("b").size() - 2);
        assertThat(given.works()).containsExactlyElementsOf(Shares.cut(12, 16, 1));
        assertThat(f.worksLeft()).isEqualTo(3);
        // Whatever no thief took within the grace goes to the peers' orphan rule.
        time.advance(Duration.ofMillis(1_999));
        assertThat(f.worksLeft()).isEqualTo(3);
        time.advance(Duration.ofMillis(1));
        assertThat(f.worksLeft()).isZero();
        assertThat(run.last("b")).isEqualTo(new WorksLeft(0));
        assertThat(f.handedOff()).isTrue();
        // It reads nothing more from S3, takes no orphans, and does not fail.
        f.take(List.of(new PieceRun(20, 22)));
        f.pump();
        assertThat(f.worksLeft()).isZero();
        assertThat(s3.reads).hasSize(1);
        assertThat(run.failure).isNull();
    }

    @Test
    void aLeavingNodeWhosePlanGivesNoWorkReleasesItsShareAtOnce() {
        run.peers.add("b");
        ShareFetcher f = fetcher(Strategy.NON_STEAL);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        f.leave(2_000);
        time.runPending();
        assertThat(f.handedOff()).isTrue();
        assertThat(run.last("b")).isEqualTo(new WorksLeft(0));
        assertThat(run.failure).isNull();
    }

    @Test
    void aLeavingNodeWithNothingInFlightHandsOnAtOnceAndALeaveBeforeTheShareDoesNothing() {
        run.peers.add("b");
        ShareFetcher before = fetcher(Strategy.STEAL);
        before.leave(2_000);
        assertThat(before.leaving()).isFalse();

        ShareFetcher f = fetcher(Strategy.OVERLAP);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        s3.readAll(f);
        s3.complete(time);
        f.leave(2_000);
        assertThat(f.handedOff()).isTrue();
        assertThat(s3.reads).hasSize(1);
    }

    /** Node 1's share begun with peer b connected, its fetch failed past retries with {@code message}. */
    private ShareFetcher failedWithPeerB(Strategy strategy, String message) {
        run.peers.add("b");
        ShareFetcher f = fetcher(strategy);
        f.begin(share(1), SIZING, new Bitfield(PIECES));
        s3.last.completeExceptionally(new BroadcastException(message));
        time.runPending();
        return f;
    }

    private static Bitfield range(int first, int end) {
        Bitfield b = new Bitfield(PIECES);
        b.setRange(first, end);
        return b;
    }

    /** A node alone in its view: the whole object in one-piece rendezvous units, sized for a node alone. */
    private static final WorkSizing.Sizing ALONE = WorkSizing.computed(16).size(WorkSizing.Share.of(PIECES, PIECE, 1));

    private static List<PieceRun> aloneShare() {
        return RendezvousShares.share(PIECES, List.of("a"), "a");
    }

    @Test
    void aNodeAloneInItsViewReadsThroughOneConnectionUntilItLearnsOfAMember() {
        assertThat(ALONE.connections()).isGreaterThan(1);
        ShareFetcher f = fetcher(Strategy.OVERLAP);
        f.begin(aloneShare(), ALONE, new Bitfield(PIECES), true, 0);
        assertThat(f.readsNarrow()).isTrue();
        assertThat(s3.shape.connections()).isEqualTo(1);
        assertThat(s3.shape.maxConnections()).isEqualTo(1);
        assertThat(s3.shape.rangeBytes()).isEqualTo(ALONE.reads().rangeBytes());
        List<PieceRun> first = s3.poll(f, 1);
        assertThat(first).hasSize(1);

        f.notAlone();
        assertThat(f.readsNarrow()).isFalse();
        assertThat(s3.poll(f, 1)).as("the one-connection fetch ends after its read in flight").isEmpty();
        assertThat(s3.reads).hasSize(1);
        for (int p = first.get(0).first(); p < first.get(0).end(); p++) {
            f.pieceStored(p, true);
        }
        s3.complete(time);
        assertThat(s3.reads).containsExactly(new RangeReads(1, ALONE.reads().rangeBytes()), ALONE.reads());
        assertThat(s3.queue).isSameAs(f.workList());
        assertThat(s3.readAll(f)).isEqualTo(PIECES - first.get(0).count());
    }

    @Test
    void aNodeAloneWidensItsReadsWhenTheGraceEndsWithNoMemberLearnt() {
        ShareFetcher f = fetcher(Strategy.OVERLAP);
        f.begin(aloneShare(), ALONE, new Bitfield(PIECES), true, 0);
        List<PieceRun> first = s3.poll(f, 1);
        time.advance(Duration.ofMillis(NarrowStart.ALONE_GRACE_MILLIS - 1));
        assertThat(f.readsNarrow()).isTrue();
        List<PieceRun> second = s3.poll(f, 1);
        assertThat(second).hasSize(1);
        time.advance(Duration.ofMillis(1));
        assertThat(f.readsNarrow()).isFalse();
        assertThat(s3.poll(f, 1)).isEmpty();
        for (PieceRun r : List.of(first.get(0), second.get(0))) {
            for (int p = r.first(); p < r.end(); p++) {
                f.pieceStored(p, true);
            }
        }
        s3.complete(time);
        assertThat(s3.reads).hasSize(2).last().isEqualTo(ALONE.reads());
    }

    @Test
    void aNodeThatIsNotAloneReadsWithItsSizedReadsFromTheStart() {
        ShareFetcher f = fetcher(Strategy.OVERLAP);
        f.begin(aloneShare(), ALONE, new Bitfield(PIECES), false, 0);
        assertThat(f.readsNarrow()).isFalse();
        assertThat(s3.reads).containsExactly(ALONE.reads());
    }

    @Test
    void aNodeWithPeersToConnectToReadsThroughOneConnectionUntilItsOverlayIsUp() {
        ShareFetcher f = fetcher(Strategy.OVERLAP);
        f.begin(aloneShare(), ALONE, new Bitfield(PIECES), false, 3);
        assertThat(f.readsNarrow()).isTrue();
        assertThat(s3.shape.connections()).isEqualTo(1);
        assertThat(s3.shape.maxConnections()).isEqualTo(1);
        List<PieceRun> first = s3.poll(f, 1);
        assertThat(first).hasSize(1);

        f.peersConnected(2);
        assertThat(f.readsNarrow()).as("two of the three peers").isTrue();
        f.peersConnected(3);
        assertThat(f.readsNarrow()).isFalse();
        assertThat(s3.poll(f, 1)).as("the one-connection fetch ends after its read in flight").isEmpty();
        for (int p = first.get(0).first(); p < first.get(0).end(); p++) {
            f.pieceStored(p, true);
        }
        s3.complete(time);
        assertThat(s3.reads).containsExactly(new RangeReads(1, ALONE.reads().rangeBytes()), ALONE.reads());
        assertThat(s3.readAll(f)).isEqualTo(PIECES - first.get(0).count());
    }

    @Test
    void anOverlayStartWidensItsReadsWhenTheGraceEndsShortOfPeers() {
        ShareFetcher f = fetcher(Strategy.OVERLAP);
        f.begin(aloneShare(), ALONE, new Bitfield(PIECES), false, 3);
        f.peersConnected(1);
        time.advance(Duration.ofMillis(NarrowStart.OVERLAY_GRACE_MILLIS - 1));
        assertThat(f.readsNarrow()).isTrue();
        time.advance(Duration.ofMillis(1));
        assertThat(f.readsNarrow()).isFalse();
        f.peersConnected(3);
        assertThat(f.readsNarrow()).as("a peer that connects after the grace changes nothing").isFalse();
    }

    @Test
    void aNodeAlreadyConnectedToItsOverlayOrWithNoneToWaitForReadsWithItsSizedReads() {
        ShareFetcher none = fetcher(Strategy.OVERLAP);
        none.begin(aloneShare(), ALONE, new Bitfield(PIECES), false, 0);
        assertThat(none.readsNarrow()).isFalse();
        assertThat(s3.reads).containsExactly(ALONE.reads());
        none.close();

        s3.reads.clear();
        ShareFetcher connected = fetcher(Strategy.OVERLAP);
        connected.begin(List.of(), ALONE, new Bitfield(PIECES), false, 3);
        assertThat(connected.readsNarrow()).as("a node with no share of its own reads nothing narrow").isFalse();
    }

    @Test
    void aMemberLearntLateEndsAnOverlayStart() {
        ShareFetcher f = fetcher(Strategy.OVERLAP);
        f.begin(aloneShare(), ALONE, new Bitfield(PIECES), false, 3);
        f.notAlone();
        assertThat(f.readsNarrow()).isFalse();
        f.peersConnected(3);
        assertThat(f.readsNarrow()).isFalse();
    }

    /** The run as phase 1 sees it: peers that record what they are sent. */
    static final class FakeRun implements PhaseOneRun {
        final Set<String> peers = new TreeSet<>();
        final Map<String, List<PeerMessage>> sent = new TreeMap<>();
        final Map<String, Integer> peerWorks = new TreeMap<>();
        int phase2Starts;
        boolean fetching = true;
        Throwable failure;

        @Override
        public Set<String> peers() {
            return peers;
        }

        @Override
        public boolean send(String peer, PeerMessage msg) {
            if (!peers.contains(peer)) {
                return false;
            }
            sent.computeIfAbsent(peer, k -> new ArrayList<>()).add(msg);
            return true;
        }

        @Override
        public boolean peersOutOfWork() {
            return peerWorks.values().stream().allMatch(w -> w == 0);
        }

        @Override
        public void phase2Starts() {
            phase2Starts++;
        }

        @Override
        public boolean peersFetching() {
            return fetching;
        }

        @Override
        public void failed(Throwable error) {
            failure = error;
        }

        List<PeerMessage> sent(String peer) {
            return sent.getOrDefault(peer, List.of());
        }

        PeerMessage last(String peer) {
            List<PeerMessage> l = sent(peer);
            return l.isEmpty() ? null : l.get(l.size() - 1);
        }
    }

    /** S3 as phase 1 sees it: each fetch polls its queue when the test says, and completes when told. */
    private static final class FakeSource implements ShareRead.Source {
        final List<RangeReads> reads = new ArrayList<>();
        PieceQueue queue;
        RangeReads shape;
        CompletableFuture<Void> last;

        @Override
        public CompletableFuture<Void> fetch(PieceQueue q, RangeReads r) {
            reads.add(r);
            queue = q;
            shape = r;
            last = new CompletableFuture<>();
            return last;
        }

        /** Takes up to {@code runs} runs from the queue without storing them (in flight). */
        List<PieceRun> poll(ShareFetcher f, int runs) {
            List<PieceRun> out = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                PieceRun run = queue.poll((int) (shape.rangeBytes() / PIECE));
                if (run == null) {
                    break;
                }
                out.add(run);
            }
            return out;
        }

        /** Reads every run the queue hands out and stores its pieces; returns the pieces read. */
        int readAll(ShareFetcher f) {
            int n = 0;
            for (PieceRun run; (run = queue.poll((int) (shape.rangeBytes() / PIECE))) != null; ) {
                for (int p = run.first(); p < run.end(); p++) {
                    f.pieceStored(p, true);
                    n++;
                }
            }
            f.advertiseWorks();
            return n;
        }

        /** The fetch ends (its queue gave null); its completion runs on the loop. */
        void complete(ManualScheduler time) {
            last.complete(null);
            time.runPending();
        }
    }
}
