package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * Reads one {@link PieceRun} with ranged GETs pinned to the object's ETag, retrying until every piece of
 * the run is stored. A retry asks only for the pieces not yet stored. Failures S3 or the network may get
 * over ({@link Failures.Kind#RETRY}) are retried after an exponential, fully jittered backoff; after
 * {@code maxAttempts} attempts in a row that stored no piece the run fails, naming its byte range.
 */
final class RangeReader {

    private static final Logger LOG = LoggerFactory.getLogger(RangeReader.class);

    private final ReadContext ctx;
    private final PieceRun run;
    private final PieceLayout layout;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    /** The first piece of the run this reader has not stored yet; only grows. */
    private volatile int nextPiece;
    // guarded by this
    private int attempts;
    private int failuresWithoutProgress;
    private Attempt current;
    private ScheduledFuture<?> pendingRetry;
    private boolean cancelled;

    RangeReader(ReadContext ctx, PieceRun run) {
        this.ctx = ctx;
        this.run = run;
        this.layout = ctx.store().layout();
        this.nextPiece = run.first();
    }

    PieceRun run() {
        return run;
    }

    /** Starts the first attempt; the future completes when the run is stored, or fails for good. */
    CompletableFuture<Void> start() {
        startAttempt();
        return done;
    }

    /** Cancels the request in flight or the retry waiting; the future completes cancelled. */
    void cancel() {
        Attempt a;
        ScheduledFuture<?> retry;
        synchronized (this) {
            cancelled = true;
            a = current;
            retry = pendingRetry;
        }
        if (retry != null) {
            retry.cancel(false);
        }
        CancellationException cancellation = new CancellationException("fetch of " + ctx.name() + " was cancelled");
        if (a != null) {
            a.end(cancellation);
        }
        done.completeExceptionally(cancellation);
    }

    private void startAttempt() {
        Attempt a;
        synchronized (this) {
            pendingRetry = null;
            if (cancelled || done.isDone()) {
                return;
            }
            int first = nextPiece;
            if (first >= run.end()) {
                a = null;
            } else {
                a = new Attempt(++attempts, first);
                current = a;
            }
        }
        if (a == null) {
            done.complete(null);
        } else {
            a.start();
        }
    }

    private void attemptEnded(Attempt a, Throwable failure) {
        synchronized (this) {
            if (cancelled) {
                return;
            }
        }
        if (failure == null) {
            if (nextPiece >= run.end()) {
                done.complete(null);
                return;
            }
            failure = new TransientReadException("response for " + a.writer.range() + " of " + ctx.name()
                    + " completed before every piece was stored");
        }
        Failures.Kind kind = Failures.classify(failure);
        if (kind == Failures.Kind.CANCELLED) {
            done.completeExceptionally(Failures.unwrap(failure));
            return;
        }
        if (kind != Failures.Kind.RETRY) {
            done.completeExceptionally(Failures.toBroadcastException(kind, failure, ctx.object().bucket(),
                    ctx.object().key(), ctx.object().eTag(), a.writer.range(), a.number));
            return;
        }
        int retry;
        synchronized (this) {
            failuresWithoutProgress = nextPiece > a.firstPiece ? 1 : failuresWithoutProgress + 1;
            retry = failuresWithoutProgress;
        }
        if (retry >= ctx.maxAttempts()) {
            done.completeExceptionally(Failures.toBroadcastException(kind, failure, ctx.object().bucket(),
                    ctx.object().key(), ctx.object().eTag(), a.writer.range(), retry));
            return;
        }
        long delay = ctx.backoff().delayNanos(retry, ctx.random().getAsDouble());
        PieceRun remaining = new PieceRun(nextPiece, run.end());
        LOG.debug("{} of {} failed (attempt {}), retrying in {} ms: {}", a.writer.range(), ctx.name(), a.number,
                TimeUnit.NANOSECONDS.toMillis(delay), Failures.describe(failure));
        try {
            ctx.listener().retrying(remaining, a.number, TimeUnit.NANOSECONDS.toMillis(delay), Failures.unwrap(failure));
        } catch (RuntimeException | Error e) {
            done.completeExceptionally(new BroadcastException("a SourceListener threw while fetching " + ctx.name()
                    + ": " + e, e));
            return;
        }
        try {
            synchronized (this) {
                if (cancelled) {
                    return;
                }
                pendingRetry = ctx.scheduler().schedule(this::startAttempt, delay, TimeUnit.NANOSECONDS);
            }
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(new BroadcastException("cannot retry " + a.writer.range() + " of "
                    + ctx.name() + ": the source is closed", e));
        }
    }

    private void pieceStored(int piece) {
        if (piece + 1 > nextPiece) {
            nextPiece = piece + 1;
        }
    }

    /** One GET: its writer, its watchdog, the SDK's future; ends once, by whichever comes first. */
    private final class Attempt {
        final int number;
        final int firstPiece;
        final PieceWriter writer;
        final StallWatchdog watchdog;
        final AtomicBoolean ended = new AtomicBoolean();
        volatile CompletableFuture<Void> request;

        Attempt(int number, int firstPiece) {
            this.number = number;
            this.firstPiece = firstPiece;
            long start = layout.offset(firstPiece);
            int last = run.end() - 1;
            long end = layout.offset(last) + layout.length(last);
            this.watchdog = new StallWatchdog(ctx.scheduler(), ctx.ticker(), ctx.firstByteTimeout(), ctx.stallTimeout(),
                    this::stalled);
            this.writer = new PieceWriter(ctx.object(), ctx.store(), ctx.listener(), start, end,
                    RangeReader.this::pieceStored, watchdog::progress, ctx.buffers());
        }

        void start() {
            GetObjectRequest request = S3ReadOptions.apply(GetObjectRequest.builder()
                    .bucket(ctx.object().bucket())
                    .key(ctx.object().key())
                    .range(writer.range().replace(' ', '='))
                    .ifMatch(ctx.object().eTag()), ctx.object().options())
                    .build();
            CompletableFuture<Void> f;
            try {
                watchdog.start();
                f = ctx.client().getObject(request, writer);
            } catch (RuntimeException | Error e) {
                f = CompletableFuture.failedFuture(e);
            }
            this.request = f;
            if (ended.get()) {
                f.cancel(true);
            }
            f.whenComplete((v, e) -> end(e));
        }

        private void stalled(long idleNanos, boolean beforeFirstByte) {
            long idle = Duration.ofNanos(idleNanos).toMillis();
            String why = beforeFirstByte
                    ? "no response " + idle + " ms after the request was sent (firstByteTimeout "
                            + ctx.firstByteTimeout().toMillis() + " ms)"
                    : "no byte for " + idle + " ms (stallTimeout " + ctx.stallTimeout().toMillis() + " ms)";
            TransientReadException stall = new TransientReadException(writer.range() + " of " + ctx.name()
                    + " stalled on attempt " + number + ": " + why);
            // Once per stalled request; the retry that follows is logged at DEBUG.
            LOG.warn("{}; abandoning the GET (retried unless its attempts ran out)", stall.getMessage());
            end(stall);
        }

        /** Ends this attempt; {@code failure} null means the SDK reported success. */
        void end(Throwable failure) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            try {
                watchdog.stop();
                if (failure != null) {
                    // Cancels the SDK's future first: a cancellation is what makes the SDK abort the request
                    // and drop its connection, also before any byte came (after the writer failed, the future
                    // may already be done and the cancel lost). Then stops the writer, before a retry can
                    // start on the same pieces (on success it has finished already).
                    CompletableFuture<Void> f = request;
                    if (f != null) {
                        f.cancel(true);
                    }
                    writer.abort(failure);
                }
            } finally {
                try {
                    attemptEnded(this, failure);
                } catch (RuntimeException | Error e) {
                    done.completeExceptionally(e);
                }
            }
        }
    }
}
