package io.s3broadcast.s3;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one {@link PieceRun} with ranged GETs pinned to the object's ETag (each an {@link Attempt}), retrying
 * until every piece of the run is stored. A retry asks only for the pieces not yet stored. Failures S3 or the
 * network may get over ({@link Failures.Kind#RETRY}) are retried after an exponential, fully jittered backoff;
 * after {@code maxAttempts} attempts in a row that stored no piece the run fails, naming its byte range; a 412
 * fails it with what the object is now ({@link ChangedObject}).
 *
 * <p>A reader may be {@linkplain #split split} while it reads: it stops at the cut and a new reader takes
 * the bytes after it ({@link Fetch} hedges a slow range this way). So a reader reads bytes
 * {@code [startByte, endByte)}, which may begin or end within a piece; such a piece is a part
 * ({@link PieceWriter}), reported to {@code onPartWritten} instead of being recorded.
 */
final class RangeReader implements Attempt.Reader, ReadProgress {

    private static final Logger LOG = LoggerFactory.getLogger(RangeReader.class);

    private final ReadContext ctx;
    private final PieceRun run;
    private final PieceLayout layout;
    private final IntConsumer onPartWritten;
    private final Runnable onThrottled;
    private final LongConsumer onBytes;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    /** The first byte this reader reads; the first byte of the run unless it took over another's tail. */
    private final long startByte;
    /** One past the last byte this reader reads; lowered by {@link #split}. */
    private volatile long endByte;
    /** The first piece whose bytes (of this reader's) are not all written yet; only grows. */
    private volatile int nextPiece;
    private final long startNanos;
    /** When the first byte of this reader came, or -1. */
    private volatile long firstByteNanos = -1;
    // guarded by this
    private int attempts;
    private int failuresWithoutProgress;
    private Attempt current;
    private ScheduledFuture<?> pendingRetry;
    private boolean cancelled;
    /** Bytes received by attempts that ended. */
    private volatile long received;
    /** Whether {@link #split} cut this reader short. */
    private volatile boolean wasCut;

    RangeReader(ReadContext ctx, PieceRun run) {
        this(ctx, run, ctx.store().layout().offset(run.first()), p -> { }, () -> { }, n -> { });
    }

    /**
     * Reads the bytes of {@code run} from {@code startByte} (within its first piece) on.
     *
     * @param onPartWritten told when a part (a piece this reader has only some bytes of) is written
     * @param onThrottled told when S3 answers 503 SlowDown
     * @param onBytes told how many bytes came, as they come
     */
    RangeReader(ReadContext ctx, PieceRun run, long startByte, IntConsumer onPartWritten, Runnable onThrottled,
            LongConsumer onBytes) {
        this.ctx = ctx;
        this.run = run;
        this.layout = ctx.store().layout();
        this.onPartWritten = onPartWritten;
        this.onThrottled = onThrottled;
        this.onBytes = onBytes;
        this.startByte = startByte;
        int last = run.end() - 1;
        this.endByte = layout.offset(last) + layout.length(last);
        if (startByte < layout.offset(run.first()) || startByte >= endByte) {
            throw new IllegalArgumentException("byte " + startByte + " is not within " + run);
        }
        this.nextPiece = run.first();
        this.startNanos = ctx.ticker().read();
    }

    PieceRun run() {
        return run;
    }

    @Override
    public long endByte() {
        return endByte;
    }

    @Override
    public long startNanos() {
        return startNanos;
    }

    @Override
    public long firstByteNanos() {
        return firstByteNanos;
    }

    @Override
    public synchronized long position() {
        if (current != null && !current.ended()) {
            return current.position();
        }
        if (finished()) {
            return endByte;
        }
        return Math.max(startByte, layout.offset(nextPiece));
    }

    @Override
    public synchronized long received() {
        return received + (current == null ? 0 : current.received());
    }

    /**
     * Makes this reader stop at byte {@code at} (within its bytes, after where it is): true when it will, and
     * another reader is then to read {@code [at, old endByte)}; false when it is past {@code at} or done.
     */
    boolean split(long at) {
        synchronized (this) {
            if (cancelled || done.isDone() || finished() || at >= endByte || at <= startByte) {
                return false;
            }
            Attempt a = current;
            if (a != null && !a.ended()) {
                if (!a.cut(at)) {
                    return false;
                }
            } else if (at <= layout.offset(nextPiece)) {
                return false;
            }
            endByte = at;
            wasCut = true;
            return true;
        }
    }

    @Override
    public boolean finished() {
        long end = endByte;
        return nextPiece > layout.pieceAt(end - 1);
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
            if (finished()) {
                a = null;
            } else {
                a = new Attempt(ctx, this, ++attempts, nextPiece, Math.max(startByte, layout.offset(nextPiece)),
                        endByte, onPartWritten);
                current = a;
            }
        }
        if (a == null) {
            done.complete(null);
        } else {
            a.start();
        }
    }

    @Override
    public void attemptEnded(Attempt a, Throwable failure) {
        try {
            afterAttempt(a, failure);
        } catch (RuntimeException | Error e) {
            done.completeExceptionally(e);
        }
    }

    /** What follows an attempt that ended: the run is done, fails, or is retried after a backoff. */
    private void afterAttempt(Attempt a, Throwable failure) {
        synchronized (this) {
            received += a.received();
            if (current == a) {
                // Its bytes are in received now; counted once.
                current = null;
            }
            if (cancelled) {
                return;
            }
        }
        if (finished() && (failure == null || wasCut && Failures.classify(failure) != Failures.Kind.FATAL)) {
            // After a cut the GET is abandoned once every byte up to the cut is written; what the client makes
            // of that abandoned request does not matter.
            done.complete(null);
            return;
        }
        if (failure == null) {
            failure = new TransientReadException("response for " + a.range() + " of " + ctx.name()
                    + " completed before every piece was stored");
        }
        Failures.Kind kind = Failures.classify(failure);
        if (kind == Failures.Kind.CANCELLED) {
            done.completeExceptionally(Failures.unwrap(failure));
            return;
        }
        if (kind == Failures.Kind.OBJECT_CHANGED && !(Failures.unwrap(failure) instanceof BroadcastException)) {
            // A 412 to the If-Match: a HEAD tells what the object is now. A response the writer found to be of
            // another version (its ETag or size) says so itself and fails below as it is.
            ChangedObject.failure(ctx, a.range(), Failures.unwrap(failure)).thenAccept(done::completeExceptionally);
            return;
        }
        if (kind != Failures.Kind.RETRY) {
            done.completeExceptionally(Failures.toBroadcastException(kind, failure, ctx.object().bucket(),
                    ctx.object().key(), ctx.object().eTag(), a.range(), a.number()));
            return;
        }
        if (Failures.throttled(failure)) {
            onThrottled.run();
        }
        int retry;
        synchronized (this) {
            failuresWithoutProgress = nextPiece > a.firstPiece() ? 1 : failuresWithoutProgress + 1;
            retry = failuresWithoutProgress;
        }
        if (retry >= ctx.maxAttempts()) {
            done.completeExceptionally(Failures.toBroadcastException(kind, failure, ctx.object().bucket(),
                    ctx.object().key(), ctx.object().eTag(), a.range(), retry));
            return;
        }
        long delay = ctx.backoff().delayNanos(retry, ctx.random().getAsDouble());
        PieceRun remaining = new PieceRun(nextPiece, layout.pieceAt(endByte - 1) + 1);
        LOG.debug("{} of {} failed (attempt {}), retrying in {} ms: {}", a.range(), ctx.name(), a.number(),
                TimeUnit.NANOSECONDS.toMillis(delay), Failures.describe(failure));
        try {
            ctx.listener().retrying(remaining, a.number(), TimeUnit.NANOSECONDS.toMillis(delay),
                    Failures.unwrap(failure));
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
            done.completeExceptionally(new BroadcastException("cannot retry " + a.range() + " of "
                    + ctx.name() + ": the source is closed", e));
        }
    }

    @Override
    public void pieceStored(int piece) {
        if (piece + 1 > nextPiece) {
            nextPiece = piece + 1;
        }
    }

    @Override
    public void bytesCame(long bytes) {
        if (firstByteNanos < 0) {
            firstByteNanos = ctx.ticker().read();
        }
        onBytes.accept(bytes);
    }
}
