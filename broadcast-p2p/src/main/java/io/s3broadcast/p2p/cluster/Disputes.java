package io.s3broadcast.p2p.cluster;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * S3 settles what peers cannot: pieces are read again from S3 ({@link #recheck}), each one's true digest bans
 * the peers that vouched otherwise ({@link #convict}, which reads again the pieces taken on a liar's word), and
 * S3's bytes replace wrong ones in the store (or fill missing ones). Pieces under a check are quarantined (not
 * served). It also keeps which pieces were taken on a peer's word ({@link #takenFromPeer}), the ones a liar's
 * conviction or a repair reads again. State on the run's loop ({@code loop}); S3's bytes are copied into the
 * store on {@code disk}.
 */
final class Disputes {

    private static final Logger LOG = LoggerFactory.getLogger(Disputes.class);

    /** Reads pieces again from S3 ({@link SourceCheck#fetch} in a run). */
    @FunctionalInterface
    interface Source {
        CompletableFuture<? extends Reread> read(BitSet pieces);
    }

    /** Pieces read again from S3, held until {@link #close()}. */
    interface Reread extends AutoCloseable {
        /** S3's SHA-256 of {@code piece}. */
        byte[] digest(int piece);

        /** Writes S3's bytes of {@code piece} into {@code store}; true when the piece was not there before. */
        boolean copyInto(PieceStore store, int piece) throws IOException;

        @Override
        void close();
    }

    /** What the run does with the outcome; called on its loop. */
    interface Run {
        /** {@code piece} was missing from the store and now holds S3's bytes. */
        void pieceAdded(int piece);

        /** A round of checks ended and no other is under way. */
        void checksEnded();

        /** Something failed that fails the run. */
        void failed(Throwable error);
    }

    private final Supplier<String> self;
    private final String object;
    private final PieceStore store;
    private final Vouches vouches;
    private final IntFunction<byte[]> expected;
    private final BanList bans;
    private final Source source;
    private final Executor loop;
    private final Executor disk;
    private final Run run;
    /** Pieces stored from peers (accepted on a peer's digest), not read from S3 by this node. */
    private final BitSet fromPeers = new BitSet();
    /** Pieces being read again from S3 to settle a dispute or repair. */
    private final BitSet checking = new BitSet();
    /** The rounds of checks from S3 under way: a later check of the same pieces waits for them. */
    private final Map<CompletableFuture<Void>, BitSet> checks = new HashMap<>();
    /** Pieces not to be served: stored but under a check from S3 (their bytes may be replaced). */
    private final Set<Integer> quarantine = ConcurrentHashMap.newKeySet();
    private int piecesRepaired;
    private int piecesChecked;

    /**
     * @param self     this node's id, for the log
     * @param object   what is fetched, for error messages
     * @param expected the digest a piece from a peer must match now (null when none)
     */
    Disputes(Supplier<String> self, String object, PieceStore store, Vouches vouches, IntFunction<byte[]> expected,
            BanList bans, Source source, Executor loop, Executor disk, Run run) {
        this.self = self;
        this.object = object;
        this.store = store;
        this.vouches = vouches;
        this.expected = expected;
        this.bans = bans;
        this.source = source;
        this.loop = loop;
        this.disk = disk;
        this.run = run;
    }

    /** {@code piece} was stored from a peer, on its word. */
    void takenFromPeer(int piece) {
        fromPeers.set(piece);
    }

    /** The pieces stored on a peer's word and not read again from S3 since. */
    BitSet takenFromPeers() {
        return (BitSet) fromPeers.clone();
    }

    /** {@code piece} is being read again from S3. */
    boolean isChecking(int piece) {
        return checking.get(piece);
    }

    /** No piece is being read again from S3. */
    boolean idle() {
        return checking.isEmpty();
    }

    /** The pieces not to be served (a live, thread-safe view). */
    Set<Integer> quarantine() {
        return Collections.unmodifiableSet(quarantine);
    }

    /** Holds a stored piece back from peers while a sample of it is compared with S3 ({@link ArrivalChecks}). */
    void hold(int piece) {
        quarantine.add(piece);
    }

    /** Serves {@code piece} again after {@link #hold}, unless it is being read again from S3. */
    void release(int piece) {
        if (!checking.get(piece)) {
            quarantine.remove(piece);
        }
    }

    /** What the checks from S3 found so far. */
    ClusterRun.Repair report() {
        return new ClusterRun.Repair(piecesChecked, piecesRepaired, bans.liars());
    }

    /**
     * Bans {@code id} for a lie (a piece or digest that S3 or this node's own read contradicts): it is told
     * why ({@code GOODBYE(BAD_PIECE)}), never served or asked again, and every digest it vouched for is
     * dropped; pieces this node accepted on its word alone are read again from S3. Returns when those are
     * settled.
     */
    CompletableFuture<Void> convict(String id, String why) {
        if (!bans.convict(id, why)) {
            return CompletableFuture.completedFuture(null);
        }
        BitSet vouched = vouches.drop(id);
        BitSet suspect = new BitSet();
        for (int i = vouched.nextSetBit(0); i >= 0; i = vouched.nextSetBit(i + 1)) {
            if (fromPeers.get(i) && store.hasPiece(i) && !Arrays.equals(expected.apply(i), store.sha256(i))) {
                suspect.set(i);
            } else if (vouches.contested(i)) {
                suspect.set(i);
            }
        }
        return recheck(suspect);
    }

    /**
     * Reads {@code pieces} again from S3 (the ones not already being read): each one's true digest bans the
     * peers that vouched otherwise, and its bytes replace what the store holds when that differs (or fill it
     * when missing). Stored pieces are not served meanwhile. Completes when they are settled, follow-ups
     * (pieces of a peer banned on the way) included; a failure fails the run.
     */
    CompletableFuture<Void> recheck(BitSet pieces) {
        BitSet todo = (BitSet) pieces.clone();
        // Pieces already under a check are settled by it: wait for those rounds too.
        List<CompletableFuture<Void>> under = new ArrayList<>();
        checks.forEach((round, its) -> {
            if (its.intersects(todo)) {
                under.add(round);
            }
        });
        todo.andNot(checking);
        if (todo.isEmpty()) {
            return CompletableFuture.allOf(under.toArray(CompletableFuture[]::new));
        }
        checking.or(todo);
        for (int i = todo.nextSetBit(0); i >= 0; i = todo.nextSetBit(i + 1)) {
            quarantine.add(i);
        }
        LOG.info("{}: reading {} pieces again from S3 to check them", self.get(), todo.cardinality());
        CompletableFuture<Void> done = new CompletableFuture<>();
        checks.put(done, todo);
        done.whenComplete((v, e) -> loop.execute(() -> {
            checks.remove(done);
            if (checking.isEmpty()) {
                run.checksEnded();
            }
        }));
        under.add(done);
        CompletableFuture<Void> all = CompletableFuture.allOf(under.toArray(CompletableFuture[]::new));
        source.read(todo).whenComplete((check, e) -> {
            if (e != null) {
                loop.execute(() -> {
                    checking.andNot(todo);
                    run.failed(new BroadcastException("cannot read pieces of " + object + " again from S3 to check them: "
                            + e, e));
                    done.completeExceptionally(e);
                });
                return;
            }
            try {
                disk.execute(() -> copyChecked(check, todo, done));
            } catch (RuntimeException rejected) {
                check.close();
                done.completeExceptionally(rejected);
            }
        });
        return all;
    }

    /** On {@code disk}: puts S3's bytes where the store's differ, then settles the pieces on the run loop. */
    private void copyChecked(Reread check, BitSet todo, CompletableFuture<Void> done) {
        CheckedCopy copied = null;
        Throwable error = null;
        try {
            copied = CheckedCopy.copy(check, todo, store);
        } catch (IOException | RuntimeException e) {
            error = e;
        } finally {
            check.close();
        }
        Throwable err = error;
        CheckedCopy copy = copied;
        loop.execute(() -> {
            if (err != null) {
                checking.andNot(todo);
                run.failed(new BroadcastException("cannot write pieces read again from S3 into " + store.tempFile() + ": "
                        + err, err));
                done.completeExceptionally(err);
                return;
            }
            settle(copy, done);
        });
    }

    /** On the run loop: the pieces of one round hold S3's bytes; bans those S3 contradicts, then reports. */
    private void settle(CheckedCopy copy, CompletableFuture<Void> done) {
        int[] pieces = copy.pieces();
        int n = pieces.length;
        List<CompletableFuture<Void>> after = new ArrayList<>();
        Map<String, Integer> caught = new TreeMap<>();
        BitSet wrong = new BitSet();
        BitSet todo = new BitSet();
        for (int k = 0; k < n; k++) {
            int piece = pieces[k];
            todo.set(piece);
            piecesChecked++;
            if (copy.replaced()[k]) {
                piecesRepaired++;
                wrong.set(piece);
            }
            fromPeers.clear(piece);
            quarantine.remove(piece);
            for (String liar : vouches.own(piece, copy.truth()[k])) {
                caught.putIfAbsent(liar, piece);
            }
        }
        if (!wrong.isEmpty()) {
            LOG.warn("{}: {} of {} pieces read again from S3 held wrong bytes, now replaced with S3's: {}", self.get(),
                    wrong.cardinality(), n, wrong);
        }
        checking.andNot(todo);
        checks.remove(done);
        // Banned once every piece of this round is settled, so a liar's follow-up only covers pieces not read
        // here; and before new pieces count as stored, so the run cannot complete while follow-ups are due.
        caught.forEach((liar, piece) -> after.add(convict(liar, String.format(
                "vouched for piece %d (and maybe more) with a SHA-256 other than S3's", piece))));
        for (int k = 0; k < n; k++) {
            if (copy.added()[k]) {
                run.pieceAdded(pieces[k]);
            }
        }
        CompletableFuture.allOf(after.toArray(CompletableFuture[]::new)).whenComplete((v, x) -> {
            if (x != null) {
                done.completeExceptionally(x);
            } else {
                done.complete(null);
            }
        });
    }
}
