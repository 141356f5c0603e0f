package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.cluster.StealingScheduler.Action;
import io.s3broadcast.spi.cluster.StealingScheduler.Step;
import io.s3broadcast.spi.PieceRun;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StealingSchedulerTest {

    private static final WorkList.Remaining IDLE = new WorkList.Remaining(0, 0, 0, 0);
    private static final WorkList.Remaining BUSY = new WorkList.Remaining(3, 2, 250, 50);
    private static final WorkList.Remaining FINISHING = new WorkList.Remaining(1, 0, 0, 40);

    @Test
    void fetchesWhileItsOwnListHasQueuedPieces() {
        StealingScheduler s = StealingScheduler.steal(new Random(1));
        s.worksLeft("b", 26);
        assertThat(s.next(BUSY).action()).isEqualTo(Action.FETCH);
    }

    @Test
    void stealsFromThePeerWithMostWorksLeftOnceNothingIsQueued() {
        StealingScheduler s = StealingScheduler.steal(new Random(1));
        s.worksLeft("a", 0);
        s.worksLeft("b", 26);
        s.worksLeft("c", 4);
        Step step = s.next(FINISHING);
        assertThat(step.action()).isEqualTo(Action.STEAL);
        assertThat(step.victim()).isEqualTo("b"); // c has less than half of b's works: never a candidate
    }

    @Test
    void thievesSpreadOverTheMostLoadedPeersInProportionToTheirWorks() {
        Map<String, Integer> chosen = new TreeMap<>();
        for (int seed = 0; seed < 600; seed++) {
            StealingScheduler s = StealingScheduler.steal(new Random(seed));
            s.worksLeft("a", 0);
            s.worksLeft("b", 30);
            s.worksLeft("c", 20);
            s.worksLeft("d", 10);  // under half of b's: not a candidate
            s.worksLeft("e", 25);
            s.worksLeft("f", 16);  // fourth most: beyond the spread
            chosen.merge(s.next(IDLE).victim(), 1, Integer::sum);
        }
        assertThat(chosen).containsOnlyKeys("b", "c", "e");
        // Proportional to works: b 30/75, e 25/75, c 20/75 of the draws, give or take.
        assertThat(chosen.get("b")).isBetween(200, 280);
        assertThat(chosen.get("e")).isBetween(160, 240);
        assertThat(chosen.get("c")).isBetween(120, 200);
    }

    @Test
    void oneRequestAtATime() {
        StealingScheduler s = StealingScheduler.steal(new Random(1));
        s.worksLeft("b", 10);
        s.worksLeft("c", 4);
        Step steal = s.next(IDLE);
        assertThat(s.next(IDLE)).isEqualTo(new Step(Action.WAIT, "b", steal.requestId()));
        assertThat(s.answered("b", steal.requestId(), 5)).isTrue();
        s.worksLeft("b", 1);
        Step again = s.next(IDLE);
        assertThat(again.action()).isEqualTo(Action.STEAL);
        assertThat(again.victim()).isEqualTo("c");
        assertThat(again.requestId()).isNotEqualTo(steal.requestId());
    }

    @Test
    void tiesAreBrokenBySeededRandom() {
        Set<String> chosen = new HashSet<>();
        for (int seed = 0; seed < 20; seed++) {
            String first = victimWithSeed(seed);
            assertThat(victimWithSeed(seed)).isEqualTo(first);
            chosen.add(first);
        }
        assertThat(chosen).containsExactlyInAnyOrder("b", "c", "d");
    }

    @Test
    void aPeerThatRefusedIsNotAskedAgainUntilItAdvertisesMore() {
        StealingScheduler s = StealingScheduler.steal(new Random(1));
        s.worksLeft("b", 3); // three works, all under way: it will refuse
        s.worksLeft("c", 1); // under half of b's: asked once b refused
        Step toB = s.next(IDLE);
        assertThat(toB.victim()).isEqualTo("b");
        assertThat(s.answered("b", toB.requestId(), 0)).isTrue();
        assertThat(s.hasRefused("b")).isTrue();

        Step toC = s.next(IDLE);
        assertThat(toC.victim()).isEqualTo("c");
        s.answered("c", toC.requestId(), 0);
        // Everyone refused: done.
        assertThat(s.next(IDLE).action()).isEqualTo(Action.DONE);

        s.worksLeft("b", 2); // fewer: still refused
        assertThat(s.next(IDLE).action()).isEqualTo(Action.DONE);
        s.worksLeft("b", 9); // it received works: ask again
        assertThat(s.next(IDLE).victim()).isEqualTo("b");
    }

    @Test
    void doneWhenNoPeerHasWorksLeft() {
        StealingScheduler s = StealingScheduler.steal(new Random(1));
        assertThat(s.next(IDLE).action()).isEqualTo(Action.DONE);
        s.worksLeft("b", 0);
        s.worksLeft("c", 0);
        assertThat(s.next(FINISHING).action()).isEqualTo(Action.DONE);
        assertThat(s.clusterFinished(FINISHING)).isFalse();
        assertThat(s.clusterFinished(IDLE)).isTrue();
        s.worksLeft("c", 1);
        assertThat(s.clusterFinished(IDLE)).isFalse();
    }

    @Test
    void staleAnswersChangeNothing() {
        StealingScheduler s = StealingScheduler.steal(new Random(1));
        s.worksLeft("b", 4);
        Step step = s.next(IDLE);
        assertThat(s.answered("b", step.requestId() + 7, 0)).isFalse();
        assertThat(s.answered("c", step.requestId(), 0)).isFalse();
        assertThat(s.hasRefused("b")).isFalse();
        assertThat(s.next(IDLE).action()).isEqualTo(Action.WAIT);
    }

    @Test
    void aVictimThatDiesIsForgottenAndItsRequestAbandoned() {
        StealingScheduler s = StealingScheduler.steal(new Random(1));
        s.worksLeft("b", 9);
        s.worksLeft("c", 4);
        assertThat(s.next(IDLE).victim()).isEqualTo("b");
        s.peerLeft("b");
        Step step = s.next(IDLE);
        assertThat(step.action()).isEqualTo(Action.STEAL);
        assertThat(step.victim()).isEqualTo("c");
    }

    @Test
    void nonStealNeverSteals() {
        StealingScheduler s = StealingScheduler.nonSteal();
        s.worksLeft("b", 26);
        assertThat(s.next(BUSY).action()).isEqualTo(Action.FETCH);
        assertThat(s.next(FINISHING).action()).isEqualTo(Action.DONE);
        assertThat(s.clusterFinished(IDLE)).isFalse();
        s.worksLeft("b", 0);
        assertThat(s.clusterFinished(IDLE)).isTrue();
    }

    @Test
    void paperExampleEndToEnd() {
        // A (10 MB/s) has read its 32 works; B (2 MB/s) has read 20 MB; C similar. A asks B.
        WorkList a = WorkList.forShare(9600, 3, 0, 100);
        WorkList b = WorkList.forShare(9600, 3, 1, 100);
        drain(a, 3200);
        drain(b, 640);
        StealingScheduler s = StealingScheduler.steal(new Random(42));
        s.worksLeft("B", b.remaining().works());
        s.worksLeft("C", 12);

        Step step = s.next(a.remaining());
        assertThat(step).isEqualTo(new Step(Action.STEAL, "B", step.requestId()));
        List<PieceRun> given = b.giveAway();
        a.append(given);
        assertThat(s.answered("B", step.requestId(), given.size())).isTrue();

        assertThat(a.works()).containsExactlyElementsOf(Shares.cut(5100, 6400, 100)); // works 51..63
        assertThat(b.works()).containsExactlyElementsOf(Shares.cut(3800, 5100, 100)); // works 38..50
        assertThat(s.next(a.remaining()).action()).isEqualTo(Action.FETCH);
    }

    private static String victimWithSeed(int seed) {
        StealingScheduler s = StealingScheduler.steal(new Random(seed));
        s.worksLeft("a", 3);
        s.worksLeft("b", 7);
        s.worksLeft("c", 7);
        s.worksLeft("d", 7);
        return s.next(IDLE).victim();
    }

    private static void drain(WorkList list, int pieces) {
        int done = 0;
        while (done < pieces) {
            PieceRun run = list.poll(Math.min(10, pieces - done));
            for (int p = run.first(); p < run.end(); p++) {
                list.pieceStored(p);
            }
            done += run.count();
        }
    }
}
