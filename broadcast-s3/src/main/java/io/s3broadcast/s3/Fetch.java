package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One call of {@link S3ObjectSource#fetch}: {@code connections} lanes, each taking the next run from the
 * queue, reading it with a {@link RangeReader}, and taking another until the queue has none. Completes
 * when every lane is done; the first failure (or a cancellation of the returned future) cancels every
 * read in flight and stops polling.
 */
final class Fetch {

    private final ReadContext ctx;
    private final PieceQueue queue;
    private final int connections;
    private final int maxPieces;
    private final CompletableFuture<Void> result = new CompletableFuture<>();
    private final Set<RangeReader> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicInteger activeLanes;
    private final AtomicBoolean failing = new AtomicBoolean();

    Fetch(ReadContext ctx, PieceQueue queue, int connections, long rangeSize) {
        this.ctx = ctx;
        this.queue = queue;
        this.connections = connections;
        long pieceSize = ctx.store().layout().pieceSize();
        this.maxPieces = (int) Math.max(1, Math.min(Integer.MAX_VALUE, rangeSize / pieceSize));
        this.activeLanes = new AtomicInteger(connections);
    }

    CompletableFuture<Void> start() {
        result.whenComplete((v, e) -> {
            if (e != null) {
                cancelReads();
            }
        });
        PieceLayout layout = ctx.store().layout();
        if (layout.objectSize() != ctx.object().size()) {
            fail(new BroadcastException("the piece store for " + ctx.name() + " holds " + layout.objectSize()
                    + " bytes, the object has " + ctx.object().size()));
            return result;
        }
        for (int i = 0; i < connections && !stopping(); i++) {
            lane();
        }
        return result;
    }

    /** Runs one lane until it waits for a read or the queue is empty. */
    private void lane() {
        try {
            while (!stopping()) {
                PieceRun run;
                try {
                    run = queue.poll(maxPieces);
                } catch (RuntimeException | Error e) {
                    fail(new BroadcastException("the piece queue of " + ctx.name() + " failed: " + e, e));
                    return;
                }
                if (run == null) {
                    if (activeLanes.decrementAndGet() == 0) {
                        result.complete(null);
                    }
                    return;
                }
                if (run.end() > ctx.store().layout().pieceCount()) {
                    fail(new BroadcastException("the piece queue of " + ctx.name() + " gave " + run + ", the object has "
                            + ctx.store().layout().pieceCount() + " pieces"));
                    return;
                }
                RangeReader reader = new RangeReader(ctx, run);
                inFlight.add(reader);
                if (stopping()) {
                    // Failed or cancelled while this lane was polling; cancelReads may have missed it.
                    inFlight.remove(reader);
                    return;
                }
                CompletableFuture<Void> read = reader.start();
                if (read.isDone() && !read.isCompletedExceptionally()) {
                    inFlight.remove(reader);
                    continue;
                }
                read.whenComplete((v, e) -> {
                    inFlight.remove(reader);
                    if (e != null) {
                        fail(e);
                    } else {
                        lane();
                    }
                });
                return;
            }
        } catch (RuntimeException | Error e) {
            fail(e);
        }
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
}
