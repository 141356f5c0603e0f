package io.s3broadcast.s3;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

/**
 * One GET of a {@link RangeReader}: asks for bytes {@code [start, end)} pinned to the object's ETag, streams them
 * into the store through a {@link PieceWriter}, and watches the request with a {@link StallWatchdog}. It ends
 * once, by whichever comes first: the SDK's future, a stall, or {@link #end} from the reader (a cancellation);
 * the reader is then told ({@link Reader#attemptEnded}), and decides whether to retry.
 *
 * <p>Threads: the SDK calls in on its I/O threads, the watchdog on the scheduler's, the reader from any; only the
 * first {@link #end} does anything.
 */
final class Attempt {

    // Logs as RangeReader, whose inner class it was: log settings and readers of the logs know it by that name.
    private static final Logger LOG = LoggerFactory.getLogger(RangeReader.class);

    /** The reader an attempt reads for: told what the GET brings, and when it ended. */
    interface Reader {

        /** Every byte of {@code piece} this reader reads is written (called under the writer's lock). */
        void pieceStored(int piece);

        /** {@code bytes} came (0 for the response's headers). */
        void bytesCame(long bytes);

        /** Whether every piece this reader reads is written (up to its cut, if it was cut). */
        boolean finished();

        /** {@code attempt} ended; {@code failure} is null when the SDK reported success. */
        void attemptEnded(Attempt attempt, Throwable failure);
    }

    private final ReadContext ctx;
    private final Reader reader;
    private final int number;
    private final int firstPiece;
    private final PieceWriter writer;
    private final StallWatchdog watchdog;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile CompletableFuture<Void> request;

    /**
     * @param number which attempt of the reader this is (1 for the first)
     * @param firstPiece the reader's first piece not stored when this attempt began
     * @param onPartWritten told when a part (a piece the reader has only some bytes of) is written
     */
    Attempt(ReadContext ctx, Reader reader, int number, int firstPiece, long start, long end,
            IntConsumer onPartWritten) {
        this.ctx = ctx;
        this.reader = reader;
        this.number = number;
        this.firstPiece = firstPiece;
        this.watchdog = new StallWatchdog(ctx.scheduler(), ctx.ticker(), ctx.firstByteTimeout(), ctx.stallTimeout(),
                this::stalled);
        this.writer = new PieceWriter(ctx.object(), ctx.store(), ctx.listener(), start, end, reader::pieceStored,
                onPartWritten, this::progress, ctx.buffers());
    }

    int number() {
        return number;
    }

    int firstPiece() {
        return firstPiece;
    }

    /** The bytes asked for, as {@code bytes a-b}. */
    String range() {
        return writer.range();
    }

    /** Whether it ended (and its writer takes nothing more). */
    boolean ended() {
        return ended.get();
    }

    /** The byte its writer is at. */
    long position() {
        return writer.position();
    }

    /** Bytes received so far. */
    long received() {
        return writer.received();
    }

    /** Makes its writer stop at byte {@code at}; false when it has passed it ({@link PieceWriter#cut}). */
    boolean cut(long at) {
        return writer.cut(at);
    }

    private void progress(long bytes) {
        reader.bytesCame(bytes);
        watchdog.progress();
    }

    /** Sends the GET; it ends when its future completes, if nothing ended it first. */
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
            if (failure == null && reader.finished() && request != null) {
                // Cut: the writer took every byte up to the cut and stopped. The request's future is complete
                // here (this runs as one of its dependents), so this cancels nothing, but it runs the future's
                // other dependents (the client's, such as giving back its connection) before the next GET.
                request.cancel(true);
            }
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
            reader.attemptEnded(this, failure);
        }
    }
}
