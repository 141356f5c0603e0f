package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.ClusterRun.Repair;
import io.s3broadcast.spi.PieceLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What to read again from S3 after the transfer, and how much: everything taken from peers when the whole
 * object failed its end-to-end check ({@link #repair}); one whole piece per vouching peer to find who lied
 * ({@link #checkOnePiecePerPeer}); and, for an object without a digest S3 vouches for, the spot check within
 * a byte budget ({@link #spotCheck}, what {@link ArrivalChecks} left). What is found wrong goes to {@link Disputes}, which bans and re-reads.
 * The plans run on the run's loop ({@code loop}).
 */
final class Repairs {

    private static final Logger LOG = LoggerFactory.getLogger(Repairs.class);

    /** Key of {@link #piecesByVoucher()} for pieces from peers that nobody vouches for any more. */
    static final String UNVOUCHED = "";

    /** Reads the samples from S3 and compares them with the store ({@link SpotCheck#run} in a run). */
    @FunctionalInterface
    interface Sampler {
        /** Completes with the pieces whose sample differs from S3's bytes. */
        CompletableFuture<BitSet> check(List<SpotCheck.Sample> samples);
    }

    private final Supplier<String> self;
    private final PieceLayout layout;
    private final Vouches vouches;
    private final Disputes disputes;
    private final IntSupplier peerMembers;
    private final Supplier<? extends Random> random;
    private final Sampler sampler;
    private final ArrivalChecks arrivals;
    private final Executor loop;

    /**
     * @param peerMembers the other members of the cluster now: the spot-check budget is split among them and this node
     * @param random      a new source of randomness per plan (a secure one in a run: a liar must not guess the picks)
     * @param arrivals    the spot check done as the pieces arrived: {@link #spotCheck} does what it left
     */
    Repairs(Supplier<String> self, PieceLayout layout, Vouches vouches, Disputes disputes, IntSupplier peerMembers,
            Supplier<? extends Random> random, Sampler sampler, ArrivalChecks arrivals, Executor loop) {
        this.self = self;
        this.layout = layout;
        this.vouches = vouches;
        this.disputes = disputes;
        this.peerMembers = peerMembers;
        this.random = random;
        this.sampler = sampler;
        this.arrivals = arrivals;
        this.loop = loop;
    }

    /**
     * End-to-end repair, after the whole file failed its check against S3's digest of the object: every piece
     * taken from peers is read again from S3; peers that vouched for wrong ones are banned and the bytes
     * replaced.
     */
    CompletableFuture<Repair> repair() {
        CompletableFuture<Repair> result = new CompletableFuture<>();
        loop.execute(() -> {
            BitSet all = disputes.takenFromPeers();
            LOG.warn("{}: the object failed its end-to-end check; reading the {} pieces taken from peers again from S3",
                    self.get(), all.cardinality());
            settle(disputes.recheck(all), result);
        });
        return result;
    }

    /**
     * One whole piece per vouching peer, taken on its word, read again from S3: a peer caught is banned and
     * every piece taken on its word read again. Pieces nobody vouches for any more are left out; no budget.
     */
    CompletableFuture<Repair> checkOnePiecePerPeer() {
        CompletableFuture<Repair> result = new CompletableFuture<>();
        loop.execute(() -> {
            Map<String, List<Integer>> byVoucher = piecesByVoucher();
            byVoucher.remove(UNVOUCHED);
            BitSet sample = onePieceEach(byVoucher.values(), random.get(), Long.MAX_VALUE);
            LOG.info("{}: reading {} pieces again from S3, one per vouching peer, to find who lied", self.get(),
                    sample.cardinality());
            settle(disputes.recheck(sample), result);
        });
        return result;
    }

    /**
     * Spot check, for an object without a digest S3 vouches for, within this node's part of the cluster's
     * {@code budgetBytes} (divided by the members): what {@link ArrivalChecks} did not already do as the pieces
     * arrived (once its checks are settled). With what is left of the part: first one whole piece per vouching
     * peer not checked whole yet (in a random order, while the budget lasts), which catches for certain a peer
     * that corrupts every piece it vouches for, even by one byte; then random small ranges of peer pieces
     * ({@link SpotCheck}), one for each vouching peer not checked at all first. A piece found wrong bans the peer
     * that vouched for it and every piece taken on its word is read again. A budget of 0 checks nothing and
     * reports what checks found so far.
     */
    CompletableFuture<Repair> spotCheck(long budgetBytes) {
        CompletableFuture<Repair> result = new CompletableFuture<>();
        loop.execute(() -> arrivals.settled().whenComplete((v, e) -> loop.execute(() -> {
            if (e != null) {
                result.completeExceptionally(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            } else {
                finishSpotCheck(budgetBytes, result);
            }
        })));
        return result;
    }

    private void finishSpotCheck(long budgetBytes, CompletableFuture<Repair> result) {
        Map<String, List<Integer>> byVoucher = piecesByVoucher();
        long budget = budgetBytes <= 0 ? 0 : Math.max(0, budgetBytes / (peerMembers.getAsInt() + 1) - arrivals.spent());
        Random rnd = random.get();
        Map<String, List<Integer>> notWhole = new TreeMap<>(byVoucher);
        notWhole.keySet().removeIf(arrivals::wholeChecked);
        BitSet whole = onePieceEach(notWhole.values(), rnd, budget);
        for (int i = whole.nextSetBit(0); i >= 0; i = whole.nextSetBit(i + 1)) {
            budget -= layout.length(i);
        }
        List<SpotCheck.Sample> samples = new ArrayList<>();
        if (!arrivals.rangesUnsupported()) {
            long count = Math.min(SpotCheck.MAX_SAMPLES - arrivals.samplesUsed(), budget / SpotCheck.SAMPLE_BYTES);
            if (count <= 0 && budget > 0 && arrivals.samplesUsed() == 0 && arrivals.wholeUsed() == 0) {
                count = 1; // as SpotCheck.pick, when nothing was checked as pieces arrived: any budget left buys one
            }
            Map<String, List<Integer>> unchecked = new TreeMap<>(byVoucher);
            unchecked.entrySet().removeIf(en -> arrivals.checked(en.getKey())
                    || en.getValue().stream().anyMatch(whole::get));
            if (count > 0) {
                samples.addAll(SpotCheck.pick(unchecked, layout, Math.min(count, unchecked.size())
                        * (long) SpotCheck.SAMPLE_BYTES, rnd));
            }
            if (count > samples.size()) {
                samples.addAll(SpotCheck.pick(byVoucher, layout, (count - samples.size()) * SpotCheck.SAMPLE_BYTES, rnd));
            }
        }
        if (whole.isEmpty() && samples.isEmpty()) {
            settle(CompletableFuture.completedFuture(null), result);
            return;
        }
        LOG.info("{}: spot check after the last piece of {} whole pieces and {} samples of pieces taken from {} peers"
                + " against S3 ({} whole pieces and {} samples checked as they arrived)", self.get(), whole.cardinality(),
                samples.size(), byVoucher.size(), arrivals.wholeUsed(), arrivals.samplesUsed());
        CompletableFuture<Void> wholeChecked = disputes.recheck(whole);
        sampler.check(samples).whenComplete((wrong, e) -> loop.execute(() -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof UnsupportedOperationException) {
                LOG.warn("{}: no spot check of ranges of the pieces taken from peers: {}", self.get(),
                        cause.getMessage());
                settle(wholeChecked, result);
            } else if (cause != null) {
                result.completeExceptionally(cause);
            } else {
                if (!wrong.isEmpty()) {
                    LOG.warn("{}: the spot check found S3's bytes differ in pieces {} taken from peers",
                            self.get(), wrong);
                }
                settle(CompletableFuture.allOf(wholeChecked, disputes.recheck(wrong)), result);
            }
        }));
    }

    /** The peer a piece counts as taken on the word of, among those that vouched for it. */
    static String firstVoucher(List<String> vouchers) {
        return vouchers.get(0);
    }

    /** The pieces taken from peers, by the peer that first vouched for each ({@link #UNVOUCHED} for none). */
    Map<String, List<Integer>> piecesByVoucher() {
        Map<String, List<Integer>> byVoucher = new TreeMap<>();
        BitSet fromPeers = disputes.takenFromPeers();
        for (int i = fromPeers.nextSetBit(0); i >= 0; i = fromPeers.nextSetBit(i + 1)) {
            List<String> v = vouches.vouchers(i);
            byVoucher.computeIfAbsent(v.isEmpty() ? UNVOUCHED : firstVoucher(v), k -> new ArrayList<>()).add(i);
        }
        return byVoucher;
    }

    /**
     * One random piece of each list, the lists in a random order, as long as their lengths fit in
     * {@code budgetBytes} (a piece that does not fit is passed over).
     */
    BitSet onePieceEach(Collection<List<Integer>> lists, Random random, long budgetBytes) {
        List<List<Integer>> order = new ArrayList<>(lists);
        Collections.shuffle(order, random);
        BitSet picked = new BitSet();
        long left = budgetBytes;
        for (List<Integer> pieces : order) {
            int piece = pieces.get(random.nextInt(pieces.size()));
            if (layout.length(piece) <= left) {
                left -= layout.length(piece);
                picked.set(piece);
            }
        }
        return picked;
    }

    private void settle(CompletableFuture<Void> checked, CompletableFuture<Repair> result) {
        checked.whenComplete((v, e) -> loop.execute(() -> {
            if (e != null) {
                result.completeExceptionally(e);
            } else {
                result.complete(disputes.report());
            }
        }));
    }
}
