package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ConnectionTuning;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.RangeReads;
import io.s3broadcast.spi.SourceListener;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call of {@link S3ObjectSource#fetch}: lanes (one ranged GET each), each taking the next run from the
 * queue, reading it with a {@link RangeReader}, and taking another until the queue has none. Completes
 * when every lane is done; the first failure (or a cancellation of the returned future) cancels every
 * read in flight and stops polling.
 *
 * <p>The number of lanes starts at {@link RangeReads#connections()} and is tuned while the fetch runs, up to
 * {@link RangeReads#maxConnections()}: every {@link ConnectionTuning#interval()} a tick starts the lanes its
 * {@link LaneCount} wants more, a lane over the count stops after its read, and a 503 SlowDown lowers it at once.
 *
 * <p>With {@link RangeReads#hedge()}, a lane that finds the queue empty hedges before it stops: it takes the
 * unreceived tail of the read in flight that {@link HedgeChoice} finds much slower than a new GET would be,
 * cutting that read short ({@link RangeReader#split}). Pieces cut in parts are completed by {@link SplitPieces}.
 *
 * <p>Threads: a lane runs on the thread its last read ended on (mostly the client's; the first lanes on the
 * caller's), ticks on the scheduler's; the count, the rates and the hedges keep their own locks.
 */
final class Fetch {

    private static final Logger LOG = LoggerFactory.getLogger(Fetch.class);

    private final ReadContext ctx;
    private final PieceQueue queue;
    private final int maxPieces;
    private final boolean hedge;
    private final ConnectionTuning tuning;
    private final LaneCount count;
    private final SplitPieces splits;
    private final SourceListener listener;
    private final CompletableFuture<Void> result = new CompletableFuture<>();
    private final Set<RangeReader> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean failing = new AtomicBoolean();
    private final LongAdder bytes = new LongAdder();
    private final ReadRates rates = new ReadRates();
    private final HedgeChoice choice;
    private ScheduledFuture<?> ticks; // guarded by this

    Fetch(ReadContext ctx, PieceQueue queue, RangeReads reads, int maxConnections) {
        this.listener = ctx.listener();
        this.ctx = ctx;
        this.queue = queue;
        long pieceSize = ctx.store().layout().pieceSize();
        this.maxPieces = (int) Math.max(1, Math.min(Integer.MAX_VALUE, reads.rangeBytes() / pieceSize));
        int initial = Math.min(reads.connections(), maxConnections);
        int maxLanes = Math.max(initial, Math.min(reads.maxConnections(), maxConnections));
        this.hedge = reads.hedge();
        this.tuning = reads.tuning();
        this.count = new LaneCount(tuning, initial, maxLanes, hedge);
        this.splits = new SplitPieces(ctx.store());
        this.choice = new HedgeChoice(rates, ctx.store().layout().pieceSize());
    }

    CompletableFuture<Void> start() {
        result.whenComplete((v, e) -> {
            stopTicks();
            if (e != null) {
                cancelReads();
            }
            HedgeChoice.Tally hedged = choice.tally();
            if (hedged.hedges() > 0) {
                LOG.debug("{}: {} hedges took {} bytes", ctx.name(), hedged.hedges(), hedged.bytes());
            }
        });
        PieceLayout layout = ctx.store().layout();
        if (layout.objectSize() != ctx.object().size()) {
            fail(new BroadcastException("the piece store for " + ctx.name() + " holds " + layout.objectSize()
                    + " bytes, the object has " + ctx.object().size()));
            return result;
        }
        int n = count.start(ctx.ticker().read());
        if (tuning != ConnectionTuning.fixed() || hedge) {
            long every = tuning.interval().toNanos();
            try {
                synchronized (this) {
                    ticks = ctx.scheduler().scheduleAtFixedRate(this::tick, every, every, TimeUnit.NANOSECONDS);
                }
            } catch (RejectedExecutionException e) {
                fail(new BroadcastException("cannot fetch " + ctx.name() + ": the source is closed", e));
                return result;
            }
        }
        for (int i = 0; i < n && !stopping(); i++) {
            lane();
        }
        return result;
    }

    /** Runs one lane until it waits for a read, or stops it when there is nothing to read or too many lanes. */
    private void lane() {
        lane(null);
    }

    /** As {@link #lane()}, reading {@code first} first when not null. */
    private void lane(RangeReader first) {
        try {
            RangeReader given = first;
            while (!stopping()) {
                if (given == null && overTarget()) {
                    return;
                }
                RangeReader reader = given != null ? given : next();
                given = null;
                if (reader == null) {
                    retire();
                    return;
                }
                inFlight.add(reader);
                if (stopping()) {
                    // Failed or cancelled while this lane was polling; cancelReads may have missed it.
                    inFlight.remove(reader);
                    return;
                }
                CompletableFuture<Void> read = reader.start();
                if (read.isDone() && !read.isCompletedExceptionally()) {
                    finished(reader);
                    continue;
                }
                read.whenComplete((v, e) -> {
                    if (e != null) {
                        inFlight.remove(reader);
                        fail(e);
                    } else {
                        finished(reader);
                        lane();
                    }
                });
                return;
            }
        } catch (RuntimeException | Error e) {
            fail(e);
        }
    }

    /** The next read: a run from the queue, else the tail of a slow read when hedging; null for none. */
    private RangeReader next() {
        PieceRun run;
        try {
            run = queue.poll(maxPieces);
        } catch (RuntimeException | Error e) {
            fail(new BroadcastException("the piece queue of " + ctx.name() + " failed: " + e, e));
            return null;
        }
        if (run != null) {
            if (run.end() > ctx.store().layout().pieceCount()) {
                fail(new BroadcastException("the piece queue of " + ctx.name() + " gave " + run + ", the object has "
                        + ctx.store().layout().pieceCount() + " pieces"));
                return null;
            }
            return reader(run, ctx.store().layout().offset(run.first()));
        }
        return hedge ? hedgeSlowest() : null;
    }

    private RangeReader reader(PieceRun run, long startByte) {
        return new RangeReader(ctx, run, startByte, this::partWritten, this::throttled, bytes::add);
    }

    /** Cuts the read in flight {@link HedgeChoice} chooses, if any; returns the reader of its tail. */
    private RangeReader hedgeSlowest() {
        if (!choice.allows(bytes.sum(), count.busy())) {
            return null;
        }
        HedgeChoice.Cut<RangeReader> chosen = choice.slowest(inFlight, ctx.ticker().read());
        if (chosen == null) {
            return null;
        }
        RangeReader slowest = chosen.read();
        long cut = chosen.at();
        PieceLayout layout = ctx.store().layout();
        long end = slowest.endByte();
        int cutPiece = layout.pieceAt(cut);
        boolean within = layout.offset(cutPiece) != cut;
        if (within) {
            splits.cutting(cutPiece);
        }
        if (!slowest.split(cut)) {
            if (within) {
                try {
                    if (splits.notCut(cutPiece)) {
                        listener.pieceStored(cutPiece);
                    }
                } catch (IOException e) {
                    fail(splits.failed(cutPiece, e));
                }
            }
            return null;
        }
        choice.took(end - cut);
        LOG.debug("{}: hedging bytes {}-{} of a read at {} ({} in flight)", ctx.name(), cut, end - 1,
                slowest.run(), inFlight.size());
        listener.hedged(end - cut);
        return reader(new PieceRun(cutPiece, layout.pieceAt(end - 1) + 1), cut);
    }

    private void partWritten(int piece) {
        try {
            if (splits.partWritten(piece)) {
                listener.pieceStored(piece);
            }
        } catch (IOException e) {
            fail(splits.failed(piece, e));
        }
    }

    private void finished(RangeReader reader) {
        inFlight.remove(reader);
        rates.finished(reader, ctx.ticker().read());
    }

    /** Measures the rate of the last interval, asks the tuner, and starts lanes up to its count. */
    private void tick() {
        // Runs on the scheduler at a fixed rate: a throw would end the ticks unseen and could leave the fetch
        // pending (a lane reserved for a tail never retired), so it fails the fetch instead.
        try {
            if (stopping()) {
                return;
            }
            LaneCount.Tick tick = count.tick(ctx.ticker().read(), bytes.sum());
            for (int i = 0; i < tick.add() && !stopping(); i++) {
                lane();
            }
            if (tick.hedgeLane()) {
                RangeReader tail = stopping() ? null : hedgeSlowest();
                if (tail == null) {
                    retire();
                } else {
                    lane(tail);
                }
            }
        } catch (RuntimeException | Error e) {
            fail(e);
        }
    }

    /** S3 answered 503 SlowDown: the count may fall ({@link LaneCount#throttled}). */
    private void throttled() {
        count.throttled(ctx.ticker().read());
    }

    /** Stops this lane when there are more than the tuner wants; true when it stopped. */
    private boolean overTarget() {
        if (!count.overTarget()) {
            return false;
        }
        return retire();
    }

    /** This lane stops; the fetch completes with the last one. */
    private boolean retire() {
        if (count.retire()) {
            result.complete(null);
        }
        return true;
    }

    private void fail(Throwable failure) {
        // The first failure wins: cancelling the other reads makes them fail too, with a cancellation.
        if (!result.isDone() && failing.compareAndSet(false, true)) {
            cancelReads();
            result.completeExceptionally(Failures.unwrap(failure));
        }
    }

    private boolean stopping() {
        return failing.get() || result.isDone();
    }

    private void cancelReads() {
        for (RangeReader reader : inFlight) {
            reader.cancel();
        }
    }

    private synchronized void stopTicks() {
        if (ticks != null) {
            ticks.cancel(false);
        }
    }
}
