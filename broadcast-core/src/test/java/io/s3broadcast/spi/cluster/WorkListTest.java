package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.spi.PieceRun;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkListTest {

    @Test
    void pollHandsOutRunsInListOrderAndMarksThemInFlight() {
        WorkList list = new WorkList(100, List.of(new PieceRun(0, 10), new PieceRun(20, 30)));
        assertThat(list.poll(4)).isEqualTo(new PieceRun(0, 4));
        assertThat(list.isInFlight(2)).isTrue();
        assertThat(list.isPending(2)).isTrue();
        assertThat(list.isInFlight(5)).isFalse();
        assertThat(list.isPending(5)).isTrue();
        assertThat(list.poll(4)).isEqualTo(new PieceRun(4, 8));
        // The next work is not adjacent: the run stops at the end of the work.
        assertThat(list.poll(4)).isEqualTo(new PieceRun(8, 10));
        assertThat(list.poll(4)).isEqualTo(new PieceRun(20, 24));
        assertThat(list.remaining()).isEqualTo(new WorkList.Remaining(2, 0, 6, 14));
        assertThat(list.poll(100)).isEqualTo(new PieceRun(24, 30));
        assertThat(list.poll(1)).isNull();
        assertThat(list.isEmpty()).isFalse();
    }

    @Test
    void aRunContinuesIntoTheNextWorkOnlyWhenItIsAdjacentInListAndObjectAndNotStarted() {
        WorkList adjacent = new WorkList(100, List.of(new PieceRun(0, 10), new PieceRun(10, 20)));
        assertThat(adjacent.poll(8)).isEqualTo(new PieceRun(0, 8));
        assertThat(adjacent.poll(8)).isEqualTo(new PieceRun(8, 16));

        // Adjacent in the object but not in the list: no crossing.
        WorkList reordered = new WorkList(100, List.of(new PieceRun(10, 20), new PieceRun(0, 10)));
        assertThat(reordered.poll(15)).isEqualTo(new PieceRun(10, 20));
        assertThat(reordered.poll(15)).isEqualTo(new PieceRun(0, 10));

        // Next work already started (a piece came from a peer): no crossing.
        WorkList started = new WorkList(100, List.of(new PieceRun(0, 10), new PieceRun(10, 20)));
        started.pieceStored(15);
        assertThat(started.poll(15)).isEqualTo(new PieceRun(0, 10));
        assertThat(started.poll(15)).isEqualTo(new PieceRun(10, 15));
        assertThat(started.poll(15)).isEqualTo(new PieceRun(16, 20));
    }

    @Test
    void storedPiecesAreSkippedAndCompleteWorksLeaveTheList() {
        WorkList list = new WorkList(100, List.of(new PieceRun(0, 5), new PieceRun(5, 10)));
        assertThat(list.pieceStored(2)).isTrue();
        assertThat(list.isPending(2)).isFalse();
        assertThat(list.poll(10)).isEqualTo(new PieceRun(0, 2));
        assertThat(list.poll(10)).isEqualTo(new PieceRun(3, 10));
        for (int p = 0; p < 5; p++) {
            list.pieceStored(p);
        }
        assertThat(list.works()).containsExactly(new PieceRun(5, 10));
        assertThat(list.pieceStored(50)).isFalse();
        assertThat(list.pieceStored(3)).isFalse();
        for (int p = 5; p < 10; p++) {
            list.pieceStored(p);
        }
        assertThat(list.isEmpty()).isTrue();
        assertThat(list.remaining()).isEqualTo(new WorkList.Remaining(0, 0, 0, 0));
    }

    @Test
    void paperStealExampleGivesTheLastHalfOfTheRemainingWorks() {
        // Node B of the paper: works 32..63 (pieces 3200-6399). After 20 MB of 32 KB pieces (640 pieces,
        // 3200-3839) works 32..37 are done and 38 is under way; B holds [38..63], len = 26.
        WorkList b = WorkList.forShare(9600, 3, 1, PhaseOneSettings.PAPER_WORK_SIZE);
        for (int i = 0; i < 64; i++) {
            PieceRun run = b.poll(10);
            for (int p = run.first(); p < run.end(); p++) {
                b.pieceStored(p);
            }
        }
        assertThat(b.remaining()).isEqualTo(new WorkList.Remaining(26, 25, 2560, 0));

        List<PieceRun> given = b.giveAway();

        assertThat(given).hasSize(13);
        assertThat(given.get(0)).isEqualTo(new PieceRun(5100, 5200));   // work 51
        assertThat(given.get(12)).isEqualTo(new PieceRun(6300, 6400));  // work 63
        assertThat(b.works()).hasSize(13);
        assertThat(b.works().get(0)).isEqualTo(new PieceRun(3800, 3900)); // work 38 stays
        assertThat(b.works().get(12)).isEqualTo(new PieceRun(5000, 5100)); // work 50
        assertThat(b.poll(10)).isEqualTo(new PieceRun(3840, 3850));

        WorkList a = new WorkList(9600, List.of());
        assertThat(a.append(given)).isEqualTo(1300);
        assertThat(a.poll(100)).isEqualTo(new PieceRun(5100, 5200));
    }

    @Test
    void giveAwayTakesCeilOfHalfTheUnstartedWorksFromTheEnd() {
        assertThat(fresh(5).giveAway()).extracting(PieceRun::first).containsExactly(20, 30, 40);
        assertThat(fresh(4).giveAway()).extracting(PieceRun::first).containsExactly(20, 30);
        assertThat(fresh(2).giveAway()).extracting(PieceRun::first).containsExactly(10);
        assertThat(fresh(0).giveAway()).isEmpty();
        WorkList five = fresh(5);
        five.giveAway();
        assertThat(five.works()).extracting(PieceRun::first).containsExactly(0, 10);
        assertThat(fresh(9).giveAway(2)).extracting(PieceRun::first).containsExactly(70, 80);
        assertThat(fresh(9).giveAway(0)).isEmpty();
    }

    @Test
    void lenCountsStartedWorksButHalfOfTheUnstartedWorksAreGiven() {
        // Four connections each reading a different work: 4 started, 2 not. len = 6 is advertised; half of the
        // 2 unstarted go, so the victim keeps one to read after its works in flight.
        WorkList list = fresh(6);
        for (int i = 0; i < 4; i++) {
            list.poll(10);
        }
        assertThat(list.remaining().works()).isEqualTo(6);
        assertThat(list.remaining().unstartedWorks()).isEqualTo(2);
        assertThat(list.giveAway()).extracting(PieceRun::first).containsExactly(50);
        // One unstarted work left: it is split, the thief takes its back half.
        assertThat(list.giveAway()).containsExactly(new PieceRun(45, 50));
        assertThat(list.remaining().works()).isEqualTo(5);
        assertThat(list.works()).endsWith(new PieceRun(40, 45));
    }

    @Test
    void withNothingElseToGiveTheQueuedTailOfAStartedWorkIsSplit() {
        // A fetch reading 3 pieces of a 10-piece work: it keeps them and the next 4, the thief takes the last 3.
        WorkList partly = fresh(1);
        partly.poll(3);
        assertThat(partly.giveAway()).containsExactly(new PieceRun(7, 10));
        assertThat(partly.poll(100)).isEqualTo(new PieceRun(3, 7));
        assertThat(partly.giveAway()).isEmpty(); // everything handed out
        for (int p = 0; p < 7; p++) {
            partly.pieceStored(p);
        }
        assertThat(partly.isEmpty()).isTrue();
    }

    @Test
    void aOnePieceTailIsNotSplitButTheLastUnstartedWorkIsGiven() {
        WorkList list = new WorkList(100, Shares.cut(0, 3, 1)); // three one-piece works
        list.poll(1);
        list.poll(1);
        assertThat(list.giveAway()).containsExactly(new PieceRun(2, 3));
        assertThat(list.giveAway()).isEmpty();
    }

    @Test
    void splittingLosesNoPieceAndQueuesNoneTwice() {
        WorkList victim = fresh(1);
        WorkList thief = new WorkList(1000, List.of());
        victim.poll(2);
        for (int round = 0; round < 5; round++) {
            thief.append(victim.giveAway());
        }
        java.util.BitSet seen = new java.util.BitSet();
        for (PieceRun r : victim.works()) {
            seen.set(r.first(), r.end());
        }
        for (PieceRun r : thief.works()) {
            assertThat(seen.get(r.first(), r.end()).isEmpty()).isTrue();
            seen.set(r.first(), r.end());
        }
        assertThat(seen.cardinality()).isEqualTo(10);
        assertThat(seen.nextClearBit(0)).isEqualTo(10);
    }

    @Test
    void aStartedWorkAtTheEndIsSkippedNotGiven() {
        WorkList list = fresh(4);
        list.pieceStored(35); // the last work got a piece from a peer
        assertThat(list.giveAway()).extracting(PieceRun::first).containsExactly(10, 20);
        assertThat(list.works()).extracting(PieceRun::first).containsExactly(0, 30);
    }

    @Test
    void appendTrimsPiecesAlreadyInTheList() {
        WorkList list = new WorkList(100, List.of(new PieceRun(0, 10)));
        assertThat(list.append(List.of(new PieceRun(5, 15), new PieceRun(12, 20), new PieceRun(40, 50)))).isEqualTo(20);
        assertThat(list.works()).containsExactly(new PieceRun(0, 10), new PieceRun(10, 15), new PieceRun(15, 20),
                new PieceRun(40, 50));
        assertThat(list.append(List.of(new PieceRun(0, 60)))).isEqualTo(30);
        assertThat(list.works()).endsWith(new PieceRun(20, 40), new PieceRun(50, 60));
        assertThatThrownBy(() -> list.append(List.of(new PieceRun(90, 101)))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void requeueInFlightPutsUnstoredPiecesBack() {
        WorkList list = fresh(2);
        list.poll(10);
        list.pieceStored(0);
        list.pieceStored(1);
        assertThat(list.requeueInFlight()).isEqualTo(8);
        assertThat(list.isInFlight(5)).isFalse();
        assertThat(list.poll(10)).isEqualTo(new PieceRun(2, 12));
    }

    @Test
    void releaseAllEmptiesTheListAndReturnsTheUnstoredRuns() {
        WorkList list = new WorkList(100, List.of(new PieceRun(0, 10), new PieceRun(20, 24)));
        list.poll(10);
        list.pieceStored(3);
        list.pieceStored(4);
        list.pieceStored(9);
        list.requeueInFlight();
        assertThat(list.releaseAll()).containsExactly(new PieceRun(0, 3), new PieceRun(5, 9), new PieceRun(20, 24));
        assertThat(list.isEmpty()).isTrue();
        assertThat(list.poll(10)).isNull();
        assertThat(list.pieceStored(20)).isFalse();
    }

    @Test
    void constructorRejectsOverlapsAndWorksOutsideTheObject() {
        assertThatThrownBy(() -> new WorkList(100, List.of(new PieceRun(0, 10), new PieceRun(9, 12))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlaps");
        assertThatThrownBy(() -> new WorkList(10, List.of(new PieceRun(5, 11))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fresh(1).poll(0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** {@code n} works of 10 pieces: [0,10), [10,20), ... */
    private static WorkList fresh(int n) {
        return new WorkList(1000, Shares.cut(0, 10 * n, 10));
    }
}
