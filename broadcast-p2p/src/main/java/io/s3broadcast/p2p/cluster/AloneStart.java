package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.RangeReads;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * The start of a node that begins alone in its view with rendezvous shares (no expected count, so others may be
 * registering at the same moment, each alone in its own view): it reads S3 through one connection until it learns of
 * another member ({@link #end()}) or {@link #GRACE_MILLIS} passed, then with its sized reads. What it started before
 * it learned of the others is read twice when another member owns it: reading its heaviest units first
 * ({@link io.s3broadcast.spi.cluster.RendezvousShares#share}), of the first k units it starts about
 * {@code k^2 (N - 1) / (2 units)} belong to others, so starting them one at a time instead of over the sized count of
 * connections (c) cuts that by about c^2 for the same wait. The cost: a node that is in fact alone reads through one
 * connection for the grace.
 */
final class AloneStart {

    /** The registry's refresh window after a start ({@link RegistrySession#MAX_REFRESH}). */
    static final long GRACE_MILLIS = RegistrySession.MAX_REFRESH.toMillis();

    /**
     * True while the node reads through one connection; read by the S3 connections through {@link #queue}, which
     * hands out nothing once it is false, so the one-connection fetch ends after its read in flight.
     */
    private final AtomicBoolean alone = new AtomicBoolean();
    private final PieceQueue works;
    /** What the one-connection fetch reads: the works, until the alone start ends. */
    private final PieceQueue queue;
    private final ScheduledExecutorService timer;
    private final Runnable onEnd;
    private ScheduledFuture<?> grace;

    /**
     * @param works what the node reads (its work list)
     * @param onEnd run on the caller's thread when the alone start ends (the next fetch then has the sized reads)
     */
    AloneStart(PieceQueue works, ScheduledExecutorService timer, Runnable onEnd) {
        this.works = works;
        this.queue = maxPieces -> alone.get() ? works.poll(maxPieces) : null;
        this.timer = timer;
        this.onEnd = onEnd;
    }

    /** The node begins alone: one connection from now until {@link #end()} or the grace. */
    void begin() {
        alone.set(true);
        grace = timer.schedule(this::end, GRACE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Whether the node reads through one connection because it knows no other member yet. */
    boolean active() {
        return alone.get();
    }

    /**
     * Starts the S3 fetch ({@code read}: a queue and its reads): while the node is alone, through one connection of
     * {@code sized}'s range size over the works until the alone start ends; else over the works with {@code sized}.
     */
    void start(BiConsumer<PieceQueue, RangeReads> read, RangeReads sized) {
        if (alone.get()) {
            read.accept(queue, new RangeReads(1, sized.rangeBytes()));
        } else {
            read.accept(works, sized);
        }
    }

    /** The node knows another member now, or the grace passed: ends the alone start (once). */
    void end() {
        if (!alone.compareAndSet(true, false)) {
            return;
        }
        grace.cancel(false);
        onEnd.run();
    }

    void close() {
        if (grace != null) {
            grace.cancel(false);
        }
    }
}
