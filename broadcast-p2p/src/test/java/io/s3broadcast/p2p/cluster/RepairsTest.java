package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ClusterRun.Repair;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RepairsTest {

    static final int PIECE = IntegrityFixture.PIECE;

    @TempDir
    Path dir;
    IntegrityFixture f;
    Repairs repairs;
    /** Every sample the spot check read from S3. */
    final List<SpotCheck.Sample> sampled = new ArrayList<>();
    /** What the fake sampler answers for a list of samples. */
    Function<List<SpotCheck.Sample>, CompletableFuture<BitSet>> sampler;
    int seed;

    @BeforeEach
    void setUp() throws Exception {
        f = new IntegrityFixture(dir, 8, "b", "c");
        sampler = samples -> {
            BitSet wrong = new BitSet();
            for (SpotCheck.Sample s : samples) {
                if (!f.holdsTruth(s.piece())) {
                    wrong.set(s.piece());
                }
            }
            return CompletableFuture.completedFuture(wrong);
        };
        Repairs.Sampler counting = samples -> {
            sampled.addAll(samples);
            return sampler.apply(samples);
        };
        // No checks as pieces arrive here (a budget of 0): ArrivalChecksTest covers those.
        repairs = new Repairs(() -> "me", f.layout, f.vouches, f.disputes, f.members::size, () -> new Random(seed++),
                counting, new ArrivalChecks(() -> "me", f.layout, f.vouches, f.disputes, f.members::size, () -> 0,
                        new Random(0), counting, f.time, 0), f.time);
        // Taken from peers: 0, 1, 2 on b's word; 3, 4 on c's (c lies about 4); 5 on nobody's any more.
        for (int p = 0; p <= 5; p++) {
            f.put(p, p == 4 ? f.junk(p) : f.truth(p));
            f.disputes.takenFromPeer(p);
        }
        for (int p = 0; p <= 2; p++) {
            f.vouches.vouch("b", p, f.sha(p));
        }
        f.vouches.vouch("c", 3, f.sha(3));
        f.vouches.vouch("c", 4, f.sha(f.junk(4)));
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    private Repair done(CompletableFuture<Repair> r) {
        f.settle();
        assertThat(r).isCompleted();
        return r.join();
    }

    @Test
    void piecesAreGroupedByTheirFirstVoucher() {
        assertThat(repairs.piecesByVoucher()).isEqualTo(Map.of("b", List.of(0, 1, 2), "c", List.of(3, 4),
                Repairs.UNVOUCHED, List.of(5)));
    }

    @Test
    void onePieceEachTakesOnePerListWhileTheBudgetLasts() {
        List<List<Integer>> lists = List.of(List.of(0, 1, 2), List.of(3, 4), List.of(5));
        for (int s = 0; s < 20; s++) {
            BitSet all = repairs.onePieceEach(lists, new Random(s), Long.MAX_VALUE);
            assertThat(all.cardinality()).isEqualTo(3);
            assertThat(all.get(0, 3).cardinality()).isEqualTo(1);
            assertThat(all.get(3, 5).cardinality()).isEqualTo(1);
            assertThat(all.get(5)).isTrue();
            assertThat(repairs.onePieceEach(lists, new Random(s), 2L * PIECE).cardinality()).isEqualTo(2);
        }
        assertThat(repairs.onePieceEach(lists, new Random(1), PIECE - 1).isEmpty()).isTrue();
    }

    @Test
    void theGuiltyPeerCheckReadsOnePiecePerVoucherAndThenAllOfTheLiars() {
        seed = 0;
        // Until the pick for c lands on its lie (piece 4), c's pieces are not read again.
        Repair r = null;
        for (int round = 0; round < 50 && f.bans.liars().isEmpty(); round++) {
            int before = f.piecesReread;
            r = done(repairs.checkOnePiecePerPeer());
            if (f.bans.liars().isEmpty()) {
                assertThat(f.piecesReread - before).isEqualTo(2); // one of b's, one of c's, never 5
            }
        }
        assertThat(r.bannedPeers()).containsExactly("c");
        assertThat(f.reread.get(5)).isFalse();
        assertThat(f.holdsTruth(4)).isTrue();
        assertThat(r.piecesRepaired()).isEqualTo(1);
    }

    @Test
    void theEndToEndRepairReadsEveryPieceTakenFromPeers() {
        Repair r = done(repairs.repair());
        assertThat(f.reread.stream().toArray()).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(r.piecesChecked()).isEqualTo(6);
        assertThat(r.piecesRepaired()).isEqualTo(1);
        assertThat(r.bannedPeers()).containsExactly("c");
        for (int p = 0; p <= 5; p++) {
            assertThat(f.holdsTruth(p)).isTrue();
        }
    }

    @Test
    void theSpotCheckStaysInThisNodesPartOfTheBudget() throws Exception {
        // No liar here: nothing is found, so nothing is read beyond the plan.
        f.store.forget(4);
        f.put(4, f.truth(4));
        f.vouches.vouch("c", 4, f.sha(4));
        // Three nodes share the budget. This node's part buys whole pieces of two of the three lists (b's, c's, the
        // unvouched piece) and nothing more. (Any budget left after the whole pieces buys at least one sample, of up
        // to SAMPLE_BYTES: SpotCheck.pick.)
        Repair r = done(repairs.spotCheck(3L * 2 * PIECE));
        assertThat(f.piecesReread).isEqualTo(2);
        assertThat(sampled).isEmpty();
        assertThat(r.bannedPeers()).isEmpty();
        // A larger part: one whole piece per list first, then samples with what is left.
        long part = 3L * PIECE + 2L * SpotCheck.SAMPLE_BYTES;
        int before = f.piecesReread;
        done(repairs.spotCheck(3 * part));
        long read = (long) (f.piecesReread - before) * PIECE + sampled.stream().mapToLong(SpotCheck.Sample::length).sum();
        assertThat(f.piecesReread - before).isEqualTo(3);
        assertThat(sampled).hasSize(2); // what is left buys two samples (of a whole short piece each, here)
        assertThat(read).isLessThanOrEqualTo(part);
    }

    @Test
    void aSampleFoundWrongConvictsItsVoucherAndReadsItsPiecesAgain() {
        // A budget with room for no whole piece: samples only, spread over b, c and the unvouched piece.
        sampler = samples -> {
            BitSet wrong = new BitSet();
            wrong.set(4);
            return CompletableFuture.completedFuture(wrong);
        };
        Repair r = done(repairs.spotCheck(3L * (PIECE - 1)));
        assertThat(sampled).isNotEmpty();
        assertThat(r.bannedPeers()).containsExactly("c");
        assertThat(f.holdsTruth(4)).isTrue();
    }

    @Test
    void aSourceThatCannotReadRangesLeavesTheWholePieces() {
        sampler = samples -> CompletableFuture.failedFuture(new UnsupportedOperationException("no ranges"));
        Repair r = done(repairs.spotCheck(3L * (2L * PIECE + SpotCheck.SAMPLE_BYTES)));
        assertThat(sampled).hasSize(1);
        assertThat(f.reread.get(0, 3).cardinality()).isEqualTo(1);
        assertThat(f.reread.get(3, 5).cardinality()).isPositive();
        assertThat(r.piecesChecked()).isPositive();
    }

    @Test
    void aBudgetOfNothingReadsNothingAndReportsWhatWasFound() {
        Repair r = done(repairs.spotCheck(0));
        assertThat(f.piecesReread).isZero();
        assertThat(sampled).isEmpty();
        assertThat(r.piecesChecked()).isZero();
    }
}
