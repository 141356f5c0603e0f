package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RendezvousSharesTest {

    private static List<String> ids(int n) {
        return IntStream.range(0, n).mapToObj(i -> "10.0.0." + i + ":7070").toList();
    }

    /** Which members read each piece, each with its own view of the membership. */
    private static int[] readers(int pieces, List<String> running, List<List<String>> views) {
        int[] readers = new int[pieces];
        for (int i = 0; i < running.size(); i++) {
            for (PieceRun w : RendezvousShares.share(pieces, views.get(i), running.get(i))) {
                for (int p = w.first(); p < w.end(); p++) {
                    readers[p]++;
                }
            }
        }
        return readers;
    }

    @Test
    void membersThatAgreeReadEveryPieceExactlyOnceInSharesOfAboutEqualSize() {
        List<String> members = ids(16);
        List<List<String>> views = members.stream().map(m -> members).toList();
        assertThat(readers(1024, members, views)).containsOnly(1);
        for (String m : members) {
            int size = RendezvousShares.share(1024, members, m).stream().mapToInt(PieceRun::count).sum();
            assertThat(size).as("share of %s", m).isBetween(1024 / 16 / 2, 1024 / 16 * 2);
        }
    }

    @Test
    void aNodeThatDoesNotKnowOneMemberDisagreesOnlyOnThatMembersUnits() {
        List<String> members = ids(16);
        String unknown = members.get(5);
        List<String> partial = members.stream().filter(m -> !m.equals(unknown)).toList();
        List<List<String>> views = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            views.add(i == 0 ? partial : members); // node 0 has not seen node 5 yet
        }
        int[] readers = readers(1024, members, views);
        int twice = (int) IntStream.of(readers).filter(r -> r == 2).count();
        assertThat(IntStream.of(readers).min().getAsInt()).as("no piece unowned").isEqualTo(1);
        assertThat(IntStream.of(readers).max().getAsInt()).isEqualTo(2);
        // Node 0 reads node 5's units where it weighs most after node 5: about 1 / (16 * 15) of the object.
        assertThat(twice).isPositive().isLessThan(1024 / 16 / 4);
    }

    @Test
    void aNodeThatKnowsAMemberTheOthersDoNotLeavesNothingUnowned() {
        List<String> members = ids(8);
        String extra = "10.0.0.99:7070"; // a newcomer only node 3 knows of, and that reads its own units
        List<String> running = new ArrayList<>(members);
        running.add(extra);
        List<String> withExtra = running;
        List<List<String>> views = new ArrayList<>();
        for (int i = 0; i < running.size(); i++) {
            views.add(i == 3 || i == running.size() - 1 ? withExtra : members);
        }
        int[] readers = readers(512, running, views);
        assertThat(IntStream.of(readers).min().getAsInt()).as("no piece unowned").isEqualTo(1);
    }

    @Test
    void learningOfAMemberMovesOnlyTheUnitsTheNewcomerOwns() {
        List<String> members = ids(10);
        String newcomer = "10.0.0.42:7070";
        String self = members.get(2);
        List<PieceRun> before = RendezvousShares.share(1000, members, self);
        List<PieceRun> moved = RendezvousShares.ownedBy(newcomer, before, 1000, members);
        List<String> more = new ArrayList<>(members);
        more.add(newcomer);
        List<PieceRun> after = RendezvousShares.share(1000, more, self);
        List<PieceRun> kept = new ArrayList<>(before);
        kept.removeAll(moved);
        assertThat(after).containsExactlyInAnyOrderElementsOf(kept);
        assertThat(moved.size()).isBetween(1, before.size() / 4);
    }

    @Test
    void unitsDependOnTheObjectOnlyAndCoverIt() {
        assertThat(RendezvousShares.unitPieces(0)).isEqualTo(1);
        assertThat(RendezvousShares.unitPieces(1024)).isEqualTo(1);
        assertThat(RendezvousShares.unitPieces(1025)).isEqualTo(2);
        assertThat(RendezvousShares.unitPieces(4096)).isEqualTo(4);
        BitSet covered = new BitSet();
        List<String> members = ids(3);
        for (String m : members) {
            for (PieceRun w : RendezvousShares.share(4099, members, m)) {
                assertThat(w.count()).isBetween(1, 5);
                covered.set(w.first(), w.end());
            }
        }
        assertThat(covered.cardinality()).isEqualTo(4099);
        assertThat(RendezvousShares.share(0, members, members.get(0))).isEmpty();
    }

    @Test
    void aShareIsReadHeaviestUnitFirstAndNodesNarrowStartAtDifferentPlaces() {
        List<String> members = ids(3);
        for (String m : members) {
            List<PieceRun> all = RendezvousShares.share(256, List.of(m), m);
            assertThat(all.stream().mapToInt(PieceRun::first).sorted().toArray()).isEqualTo(IntStream.range(0, 256).toArray());
            long own = RendezvousShares.hash(m);
            for (int i = 1; i < all.size(); i++) {
                assertThat(Long.compareUnsigned(RendezvousShares.weight(all.get(i - 1).first(), own),
                        RendezvousShares.weight(all.get(i).first(), own))).isPositive();
            }
        }
        List<Integer> starts = members.stream()
                .map(m -> RendezvousShares.share(256, List.of(m), m).get(0).first()).toList();
        assertThat(starts).doesNotHaveDuplicates();
    }

    /**
     * What a node alone in its view reads before it learns of the others is read twice when one of them owns it:
     * read heaviest first, almost none of it is; read in piece order from any start, two thirds with three members.
     */
    @Test
    void aNodeAloneReadsFirstTheUnitsItKeepsWhenItLearnsOfTheOthers() {
        Random random = new Random(11);
        int groups = 200;
        int first = 8;
        int lostHeaviestFirst = 0;
        int lostInPieceOrder = 0;
        for (int g = 0; g < groups; g++) {
            List<String> members = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                members.add("10." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + ":7070");
            }
            String self = members.get(0);
            List<PieceRun> alone = RendezvousShares.share(1024, List.of(self), self);
            int start = random.nextInt(1024);
            for (int i = 0; i < first; i++) {
                lostHeaviestFirst += RendezvousShares.owner(alone.get(i).first(), members).equals(self) ? 0 : 1;
                lostInPieceOrder += RendezvousShares.owner((start + i) % 1024, members).equals(self) ? 0 : 1;
            }
        }
        // Expected: 2 x (0.5 + 1.5 + ... + 7.5) / 1024 = 0.0625 of 8 units per node (here 200 nodes: about 12).
        assertThat(lostHeaviestFirst).isLessThan(groups * first / 50);
        assertThat(lostInPieceOrder).isGreaterThan(groups * first / 2);
    }

    @Test
    void theOwnerIsTheSameWhateverTheOrderOfTheMembers() {
        List<String> members = new ArrayList<>(ids(7));
        String owner = RendezvousShares.owner(17, members);
        java.util.Collections.reverse(members);
        assertThat(RendezvousShares.owner(17, members)).isEqualTo(owner);
    }
}
