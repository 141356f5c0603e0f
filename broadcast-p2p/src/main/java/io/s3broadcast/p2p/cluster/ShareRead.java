package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.RangeReads;
import io.s3broadcast.spi.cluster.WorkList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Phase 1's S3 fetch over the work list, one at a time: started when {@link ShareFetcher} says so, watched for a
 * stall ({@link S3StallWatch}), and on its end judged. A fetch that failed puts what was in flight back; then a
 * failure every node would meet (the object changed or is gone, access denied, the destination unusable: a
 * subclass of {@code BroadcastException}) or any failure of a node without peers fails the run, and any other
 * (retries exhausted, stalls, 503s) makes the node give up S3 ({@link ShareHandOff#giveUpS3}). Its completion runs
 * on {@code onLoop}, the run's loop, as every method does.
 */
final class ShareRead implements S3StallWatch.Fetch {

    /** Reads the pieces a queue hands out from S3. */
    interface Source {
        CompletableFuture<Void> fetch(PieceQueue queue, RangeReads reads);
    }

    private final Source source;
    private final WorkList workList;
    private final ShareHandOff handOff;
    private final PhaseOneRun run;
    private final Executor onLoop;
    private final S3StallWatch stall;
    /** Called on the loop when a fetch ended well: phase 1 goes on. */
    private final Runnable ended;
    private CompletableFuture<Void> fetch;
    private boolean closed;

    ShareRead(Source source, WorkList workList, ShareHandOff handOff, PhaseOneRun run,
            Executor onLoop, ScheduledExecutorService timer, Ticker ticker, Runnable ended) {
        this.source = source;
        this.workList = workList;
        this.handOff = handOff;
        this.run = run;
        this.onLoop = onLoop;
        this.ended = ended;
        this.stall = new S3StallWatch(timer, ticker, S3StallWatch.STALL_MILLIS, this);
    }

    /**
     * Starts a fetch of what {@code queue} hands out (the work list, or a view of it that stops handing out early:
     * {@link NarrowStart}) with {@code reads}, unless one is in flight or this is closed.
     */
    void start(PieceQueue queue, RangeReads reads) {
        if (fetch != null || closed) {
            return;
        }
        stall.progress();
        CompletableFuture<Void> f = source.fetch(queue, reads);
        fetch = f;
        stall.watch();
        f.whenComplete((v, e) -> onLoop.execute(() -> {
            if (fetch == f) {
                fetch = null;
            }
            if (e != null) {
                workList.requeueInFlight();
                if (!closed) {
                    failed(e);
                }
                return;
            }
            ended.run();
        }));
    }

    private void failed(Throwable e) {
        Throwable lost = handOff.lostS3();
        Throwable cause = lost != null ? lost
                : e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (lost != null || (!holdsForEveryNode(cause) && !run.peers().isEmpty())) {
            handOff.giveUpS3(cause);
        } else {
            run.failed(cause);
        }
    }

    /** A failure every node would meet (the object changed or is gone, access denied, the destination unusable). */
    private static boolean holdsForEveryNode(Throwable cause) {
        return cause instanceof BroadcastException && cause.getClass() != BroadcastException.class;
    }

    /** Whether a fetch is in flight. */
    boolean inFlight() {
        return fetch != null;
    }

    /** The fetch in flight, or null. */
    Future<?> current() {
        return fetch;
    }

    /** Bytes or a piece arrived from S3 (any thread). */
    void progress() {
        stall.progress();
    }

    @Override
    public boolean watched() {
        return !closed && handOff.lostS3() == null && fetch != null;
    }

    @Override
    public boolean alone() {
        return run.peers().isEmpty();
    }

    @Override
    public void stalled(BroadcastException why) {
        // The fetch may have ended already, its completion queued on the loop behind this task: then it goes on
        // as usual. Cancelled, its completion (queued, never run inline) gives up S3 with this cause.
        if (fetch.cancel(true)) {
            handOff.lost(why);
        }
    }

    /** Cancels the fetch in flight; none is started again. */
    void close() {
        closed = true;
        CompletableFuture<Void> f = fetch;
        if (f != null) {
            f.cancel(true);
        }
    }
}
