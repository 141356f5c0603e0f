package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ClusterRun.Repair;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The spot check as pieces arrive, on fake time: what it checks, when, and what it leaves to the end. */
class ArrivalChecksTest {

    int pieces = 40;

    @TempDir
    Path dir;
    IntegrityFixture f;
    ArrivalChecks arrivals;
    Repairs repairs;
    /** Every sample read from S3, as pieces arrived and at the end. */
    final List<SpotCheck.Sample> sampled = new ArrayList<>();
    /** What the fake S3 answers for a list of samples: by default the truth (a sample of a wrong piece differs). */
    Function<List<SpotCheck.Sample>, CompletableFuture<BitSet>> sampler = this::compare;
    int stored;

    /** Two peers, b and c; b vouches for the even pieces, c for the odd ones; {@code liar} lies about piece 7. */
    private void setUp(int pieceSize, long clusterBudget, int seed, boolean liar) throws Exception {
        setUp(pieceSize, clusterBudget, seed, liar, p -> p % 2 == 0 ? "b" : "c");
    }

    /** As above, {@code voucher} naming the peer that vouches for each piece. */
    private void setUp(int pieceSize, long clusterBudget, int seed, boolean liar,
            java.util.function.IntFunction<String> voucher) throws Exception {
        sampled.clear();
        stored = 0;
        Path d = java.nio.file.Files.createTempDirectory(dir, "seed" + seed);
        f = new IntegrityFixture(d, pieces, pieceSize, "b", "c");
        for (int p = 0; p < pieces; p++) {
            f.vouches.vouch(voucher.apply(p), p, liar && p == 7 ? IntegrityFixture.sha(f.junk(p)) : f.sha(p));
        }
        Repairs.Sampler counting = samples -> {
            sampled.addAll(samples);
            return sampler.apply(samples);
        };
        arrivals = new ArrivalChecks(() -> "me", f.layout, f.vouches, f.disputes, f.members::size,
                () -> pieces - stored, new Random(seed), counting, f.time, clusterBudget);
        repairs = new Repairs(() -> "me", f.layout, f.vouches, f.disputes, f.members::size, () -> new Random(seed + 1),
                counting, arrivals, f.time);
    }

    @AfterEach
    void tearDown() {
        if (f != null) {
            f.close();
        }
    }

    private CompletableFuture<BitSet> compare(List<SpotCheck.Sample> samples) {
        BitSet wrong = new BitSet();
        samples.forEach(s -> {
            if (!f.holdsTruth(s.piece())) {
                wrong.set(s.piece());
            }
        });
        return CompletableFuture.completedFuture(wrong);
    }

    /** Piece {@code p} arrives from a peer as its voucher has it (junk for piece 7 when c lies) and is stored. */
    private void arrive(int p) throws Exception {
        boolean junk = f.expected(p) != null && !java.util.Arrays.equals(f.expected(p), f.sha(p));
        f.put(p, junk ? f.junk(p) : f.truth(p));
        f.disputes.takenFromPeer(p);
        stored++;
        arrivals.stored(p);
        f.settle();
    }

    private void arriveAll() throws Exception {
        for (int p = 0; p < pieces; p++) {
            arrive(p);
        }
    }

    private Repair end(long clusterBudget) {
        CompletableFuture<Repair> r = repairs.spotCheck(clusterBudget);
        f.settle();
        assertThat(r).isCompleted();
        return r.join();
    }

    @Test
    void theSamplesAreTakenAsPiecesArriveEachPeerItsQuotaAndNoneAreLeftForTheEnd() throws Exception {
        // 64 KiB pieces; this node's part (a third: b, c and this node) buys three 16 KiB samples and no whole piece.
        long budget = 3L * 3 * SpotCheck.SAMPLE_BYTES;
        for (int seed = 0; seed < 20; seed++) {
            setUp(64 << 10, budget, seed, false);
            arriveAll();
            f.settle();
            assertThat(arrivals.samplesUsed()).as("seed %d", seed).isEqualTo(3);
            assertThat(arrivals.spent()).isEqualTo(3L * SpotCheck.SAMPLE_BYTES);
            long fromB = sampled.stream().filter(s -> s.piece() % 2 == 0).count();
            assertThat(fromB).as("every peer gets one, the first its quota of two").isBetween(1L, 2L);
            int before = sampled.size();
            Repair r = end(budget);
            assertThat(sampled).as("nothing left for the end").hasSize(before);
            assertThat(f.piecesReread).isZero();
            assertThat(r.bannedPeers()).isEmpty();
            f.close();
        }
    }

    @Test
    void everyPieceTakenOnAPeersWordIsInTheDrawEvenWhenThePeerVouchedForMoreThanAnEqualShare() throws Exception {
        // b vouches for pieces 0-29, c for 30-39; they arrive in that order. An equal split of what is still to
        // come (20 each at first) would spend b's quota on its first 20 pieces; b's own count keeps 20-29 in.
        long budget = 3L * 3 * SpotCheck.SAMPLE_BYTES;
        int late = 0;
        int fromB = 0;
        for (int seed = 0; seed < 60; seed++) {
            setUp(64 << 10, budget, seed, false, p -> p < 30 ? "b" : "c");
            arriveAll();
            for (SpotCheck.Sample s : sampled) {
                if (s.piece() < 30) {
                    fromB++;
                    late += s.piece() >= 20 ? 1 : 0;
                }
            }
            f.close();
        }
        // A uniform choice puts a third of b's samples on 20-29.
        assertThat((double) late / fromB).isBetween(0.2, 0.47);
    }

    @Test
    void aMemberSeenLateShrinksThisNodesPart() throws Exception {
        // Alone with b at the first piece, this node's part is half the budget (4 samples); once c is a member
        // too, a third (3 samples): no more than that is spent, whenever the draws fell.
        long budget = 3L * 3 * SpotCheck.SAMPLE_BYTES;
        for (int seed = 0; seed < 20; seed++) {
            setUp(64 << 10, budget, seed, false);
            f.members.remove("c");
            arrive(0);
            f.members.add("c");
            for (int p = 1; p < pieces; p++) {
                arrive(p);
            }
            assertThat(arrivals.samplesUsed()).as("seed %d", seed).isLessThanOrEqualTo(3);
            assertThat(arrivals.spent()).isLessThanOrEqualTo(budget / 3);
            f.close();
        }
    }

    @Test
    void aSampleIsHeldBackFromPeersUntilItIsComparedAndALiarIsCaughtBeforeTheLastPiece() throws Exception {
        // Eight pieces of 256 KiB and a part of 15 samples: each peer's quota (8) covers all its pieces, so every
        // piece that arrives is sampled.
        pieces = 8;
        long budget = 3L * 15 * SpotCheck.SAMPLE_BYTES;
        setUp(256 << 10, budget, 1, true);
        CompletableFuture<Void> s3 = new CompletableFuture<>();
        sampler = samples -> s3.thenCompose(v -> compare(samples));
        for (int p = 0; p < 8; p++) {
            arrive(p);
        }
        assertThat(arrivals.samplesUsed()).isEqualTo(8);
        assertThat(f.disputes.quarantine()).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(f.bans.liars()).isEmpty();
        s3.complete(null);
        f.settle();
        // The sample of 7 differed: c is banned, 7 read again and replaced, and the piece served again.
        assertThat(f.bans.liars()).containsExactly("c");
        assertThat(f.holdsTruth(7)).isTrue();
        assertThat(f.disputes.quarantine()).isEmpty();
        Repair r = end(budget);
        assertThat(r.bannedPeers()).containsExactly("c");
        assertThat(r.piecesRepaired()).isEqualTo(1);
    }

    @Test
    void wholePiecesAreReadAgainAsTheyArriveOnePerPeer() throws Exception {
        // 1 KiB pieces; this node's part buys exactly two whole pieces (one per peer) and no sample.
        long budget = 3L * 2 * IntegrityFixture.PIECE;
        setUp(IntegrityFixture.PIECE, budget, 3, false);
        arriveAll();
        f.settle();
        assertThat(arrivals.wholeUsed()).isEqualTo(2);
        BitSet reread = (BitSet) f.reread.clone();
        assertThat(reread.cardinality()).isEqualTo(2);
        int even = reread.nextSetBit(0) % 2 + reread.nextSetBit(reread.nextSetBit(0) + 1) % 2;
        assertThat(even).as("one of b's pieces, one of c's").isEqualTo(1);
        end(budget);
        assertThat(f.piecesReread).as("nothing left for the end").isEqualTo(2);
        assertThat(sampled).isEmpty();
    }

    @Test
    void whatWasNotCheckedAsPiecesArrivedIsCheckedAtTheEnd() throws Exception {
        long budget = 3L * 3 * SpotCheck.SAMPLE_BYTES;
        setUp(64 << 10, budget, 5, false);
        // Only two of c's pieces arrive while checks are drawn (the rest come outside this component, e.g. a
        // run whose estimate was off): what c lacks is sampled at the end, within the budget.
        arrive(1);
        arrive(3);
        for (int p = 0; p < pieces; p += 2) {
            f.put(p, f.truth(p));
            f.disputes.takenFromPeer(p);
        }
        f.settle();
        int early = arrivals.samplesUsed();
        end(budget);
        assertThat(sampled).hasSize(3);
        assertThat(sampled.stream().filter(s -> s.piece() % 2 == 0)).as("b, unchecked, first").isNotEmpty();
        assertThat(early).isLessThan(3);
    }

    @Test
    void aSourceThatCannotReadRangesIsNotAskedAgain() throws Exception {
        long budget = 3L * 3 * SpotCheck.SAMPLE_BYTES;
        setUp(64 << 10, budget, 2, false);
        sampler = samples -> CompletableFuture.failedFuture(new UnsupportedOperationException("no ranges"));
        arriveAll();
        f.settle();
        assertThat(arrivals.rangesUnsupported()).isTrue();
        assertThat(arrivals.samplesUsed()).isZero();
        assertThat(sampled).hasSize(1);
        assertThat(f.disputes.quarantine()).isEmpty();
        end(budget);
        assertThat(sampled).hasSize(1);
    }

    @Test
    void noBudgetChecksNothingAsPiecesArrive() throws Exception {
        setUp(64 << 10, 0, 2, false);
        arriveAll();
        f.settle();
        assertThat(sampled).isEmpty();
        assertThat(f.piecesReread).isZero();
        assertThat(arrivals.spent()).isZero();
    }
}
