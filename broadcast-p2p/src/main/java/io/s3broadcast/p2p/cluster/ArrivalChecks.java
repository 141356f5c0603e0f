package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.PieceLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spot check done while the pieces arrive, so that little of it is left after the last one
 * ({@link Repairs#spotCheck} does what is left): as each piece from a peer is stored, a secret random draw decides
 * whether it is checked against S3 now, as a whole piece (read again through {@link Disputes#recheck}) or as one
 * random range ({@link SpotCheck}), which is held back from peers until its sample is compared. A piece found
 * wrong is read again whole: {@link Disputes} bans the peer that vouched for it and reads every piece taken on
 * its word again.
 *
 * <p>The plan is the end-of-run spot check spread over time. This node's part of the cluster's budget
 * (divided by the members: the most seen so far, so a member that joins late only shrinks it) buys one whole piece per expected voucher (the
 * other members) while it lasts, then samples of {@link SpotCheck#SAMPLE_BYTES} (at most
 * {@link SpotCheck#MAX_SAMPLES}), an equal quota per voucher. Each voucher's quota is drawn by selection sampling
 * over the pieces still to come on its word (estimated from above: the pieces it vouched for and not seen here
 * yet, or an equal share of those missing and not pending from S3, whichever is more), so the checked pieces are
 * a uniform random choice among the ones taken on each peer's word, which no peer can predict; one sample is kept
 * in reserve for every expected voucher not checked yet. The estimate errs high, never low, so no piece is left
 * out of the draw; what a voucher lacks at the end for that is made up then, with what is left of the budget.
 * Not thread-safe: the run's loop only.
 */
final class ArrivalChecks {

    private static final Logger LOG = LoggerFactory.getLogger(ArrivalChecks.class);

    private final Supplier<String> self;
    private final PieceLayout layout;
    private final Vouches vouches;
    private final Disputes disputes;
    private final IntSupplier peerMembers;
    private final IntSupplier piecesToCome;
    private final Random random;
    private final Repairs.Sampler sampler;
    private final Executor loop;
    private final long clusterBudget;

    /** The most members seen (the budget's divisor, less one), and the plan for that many. */
    private int expectedVouchers;
    private int wholeSlots;
    private int sampleSlots;
    private long spent;
    private int wholeUsed;
    private int samplesUsed;
    private boolean rangesUnsupported;
    private final Map<String, Integer> wholeBy = new HashMap<>();
    private final Map<String, Integer> samplesBy = new HashMap<>();
    /** Per voucher, the pieces taken on its word seen by {@link #stored} so far. */
    private final Map<String, Integer> seen = new HashMap<>();
    private final List<CompletableFuture<Void>> checks = new ArrayList<>();

    /**
     * @param piecesToCome  pieces missing from the store and not pending from S3 in this node's own works
     * @param clusterBudget extra S3 bytes the whole cluster may read for the spot check (0: none, the object has a
     *                      digest S3 vouches for)
     */
    ArrivalChecks(Supplier<String> self, PieceLayout layout, Vouches vouches, Disputes disputes, IntSupplier peerMembers,
            IntSupplier piecesToCome, Random random, Repairs.Sampler sampler, Executor loop, long clusterBudget) {
        this.self = self;
        this.layout = layout;
        this.vouches = vouches;
        this.disputes = disputes;
        this.peerMembers = peerMembers;
        this.piecesToCome = piecesToCome;
        this.random = random;
        this.sampler = sampler;
        this.loop = loop;
        this.clusterBudget = clusterBudget;
    }

    /** {@code piece} was stored from a peer, on the word of the peers that vouched for it: maybe checked now. */
    void stored(int piece) {
        if (clusterBudget <= 0) {
            return;
        }
        List<String> vouchers = vouches.vouchers(piece);
        if (vouchers.isEmpty()) {
            return;
        }
        String voucher = Repairs.firstVoucher(vouchers);
        plan();
        // Pieces from this voucher still to come, this one included: what it vouched for and has not been seen
        // here, or an equal share of what is still to come from peers, whichever is more (a voucher still
        // reading its share vouches for more later). Too many only leaves checks to the end; too few would
        // spend the quota before the last pieces, which could then not be drawn.
        int seenBefore = seen.merge(voucher, 1, Integer::sum) - 1;
        double left = Math.max(1.0, Math.max(vouches.count(voucher) - seenBefore,
                (piecesToCome.getAsInt() + 1.0) / expectedVouchers));
        if (wholeUsed < wholeSlots && !wholeBy.containsKey(voucher) && spent + layout.length(piece) <= part()
                && random.nextDouble() * left < 1.0) {
            whole(voucher, piece);
            return;
        }
        if (rangesUnsupported || samplesUsed >= sampleSlots) {
            return;
        }
        int mine = samplesBy.getOrDefault(voucher, 0);
        int quota = (sampleSlots + expectedVouchers - 1) / expectedVouchers;
        int unchecked = Math.max(0, expectedVouchers - samplesBy.size() - (mine == 0 ? 1 : 0));
        if (mine >= quota || (mine > 0 && sampleSlots - samplesUsed <= unchecked)) {
            return;
        }
        if (random.nextDouble() * left < quota - mine) {
            sample(voucher, piece);
        }
    }

    /** This node's part of the budget. */
    private long part() {
        return clusterBudget / (expectedVouchers + 1);
    }

    /** Plans for the most members seen so far: more members shrink this node's part, never fewer. */
    private void plan() {
        int members = Math.max(1, peerMembers.getAsInt());
        if (members <= expectedVouchers) {
            return;
        }
        expectedVouchers = members;
        long part = part();
        wholeSlots = (int) Math.min(expectedVouchers, part / layout.pieceSize());
        long forSamples = part - (long) wholeSlots * layout.pieceSize();
        sampleSlots = forSamples <= 0 ? 0 : (int) Math.max(1, Math.min(SpotCheck.MAX_SAMPLES, forSamples / SpotCheck.SAMPLE_BYTES));
        LOG.debug("{}: spot check as pieces arrive: {} bytes of S3 reads, {} whole pieces and {} samples over {} peers",
                self.get(), part, wholeSlots, sampleSlots, expectedVouchers);
    }

    private void whole(String voucher, int piece) {
        wholeUsed++;
        wholeBy.merge(voucher, 1, Integer::sum);
        spent += layout.length(piece);
        BitSet one = new BitSet();
        one.set(piece);
        checks.add(disputes.recheck(one));
    }

    private void sample(String voucher, int piece) {
        int pieceLength = layout.length(piece);
        int length = Math.min(SpotCheck.SAMPLE_BYTES, pieceLength);
        SpotCheck.Sample s = new SpotCheck.Sample(piece, layout.offset(piece) + random.nextInt(pieceLength - length + 1),
                length);
        samplesUsed++;
        samplesBy.merge(voucher, 1, Integer::sum);
        spent += length;
        disputes.hold(piece);
        CompletableFuture<Void> checked = new CompletableFuture<>();
        checks.add(checked);
        sampler.check(List.of(s)).whenComplete((wrong, e) -> loop.execute(() -> {
            disputes.release(piece);
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof UnsupportedOperationException) {
                if (!rangesUnsupported) {
                    LOG.warn("{}: no spot check of ranges of the pieces taken from peers: {}", self.get(),
                            cause.getMessage());
                }
                rangesUnsupported = true;
                samplesUsed--;
                samplesBy.merge(voucher, -1, Integer::sum);
                samplesBy.remove(voucher, 0);
                spent -= length;
                checked.complete(null);
            } else if (cause != null) {
                checked.completeExceptionally(cause);
            } else if (!wrong.isEmpty()) {
                LOG.warn("{}: the spot check found S3's bytes differ in piece {} taken on {}'s word", self.get(), piece,
                        voucher);
                disputes.recheck(wrong).whenComplete((v, x) -> {
                    if (x != null) {
                        checked.completeExceptionally(x);
                    } else {
                        checked.complete(null);
                    }
                });
            } else {
                checked.complete(null);
            }
        }));
    }

    /** Completes when every check started so far is settled (follow-ups included); fails when one failed. */
    CompletableFuture<Void> settled() {
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new));
    }

    /** S3 bytes read (or being read) by these checks. */
    long spent() {
        return spent;
    }

    int samplesUsed() {
        return samplesUsed;
    }

    int wholeUsed() {
        return wholeUsed;
    }

    /** The source cannot read ranges: samples are not tried again. */
    boolean rangesUnsupported() {
        return rangesUnsupported;
    }

    /** Vouchers checked so far (a whole piece or a sample), by the voucher a piece was taken on. */
    boolean checked(String voucher) {
        return wholeBy.containsKey(voucher) || samplesBy.containsKey(voucher);
    }

    boolean wholeChecked(String voucher) {
        return wholeBy.containsKey(voucher);
    }
}
