package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.RangeReads;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * A phase 1 that starts narrow: S3 read through one connection until {@link #end()} or a grace passes, then with
 * the sized reads. Two starts are narrow:
 * <ul>
 * <li><b>Alone</b> ({@link #ALONE_GRACE_MILLIS}): a node that begins alone in its view with rendezvous shares (no
 *     expected count, so others may be registering at the same moment, each alone in its own view), until it learns
 *     of another member. What it started before it learned of the others is read twice when another member owns it:
 *     reading its heaviest units first ({@link io.s3broadcast.spi.cluster.RendezvousShares#share}), of the first k
 *     units it starts about {@code k^2 (N - 1) / (2 units)} belong to others, so starting them one at a time instead
 *     of over the sized count of connections (c) cuts that by about c^2 for the same wait. The cost: a node that is
 *     in fact alone reads through one connection for the grace.
 * <li><b>Overlay</b> ({@link #OVERLAY_GRACE_MILLIS}): a node with peers to connect to, until it is connected to them.
 *     Its sized reads ask S3 for several times its download link at once, which keeps the link's queue full: the
 *     peers' connection requests and handshakes wait in it or are dropped (a lost SYN waits a second), so at
 *     N = 16 the overlay took 3-10 s to form and the upload links idled meanwhile (docs/results.md, session 43). One
 *     read about fills the link and leaves room for them.
 * </ul>
 */
final class NarrowStart {

    /** The registry's refresh window after a start ({@link RegistrySession#MAX_REFRESH}). */
    static final long ALONE_GRACE_MILLIS = RegistrySession.MAX_REFRESH.toMillis();
    /** The longest an overlay start reads narrow: a peer that connects later joins the exchange as it would. */
    static final long OVERLAY_GRACE_MILLIS = 3_000;

    /**
     * True while the node reads through one connection; read by the S3 connections through {@link #queue}, which
     * hands out nothing once it is false, so the one-connection fetch ends after its read in flight.
     */
    private final AtomicBoolean narrow = new AtomicBoolean();
    private final PieceQueue works;
    /** What the one-connection fetch reads: the works, until the narrow start ends. */
    private final PieceQueue queue;
    private final ScheduledExecutorService timer;
    private final Runnable onEnd;
    private ScheduledFuture<?> grace;

    /**
     * @param works what the node reads (its work list)
     * @param onEnd run on the caller's thread when the narrow start ends (the next fetch then has the sized reads)
     */
    NarrowStart(PieceQueue works, ScheduledExecutorService timer, Runnable onEnd) {
        this.works = works;
        this.queue = maxPieces -> narrow.get() ? works.poll(maxPieces) : null;
        this.timer = timer;
        this.onEnd = onEnd;
    }

    /** One connection from now until {@link #end()} or {@code graceMillis} pass. */
    void begin(long graceMillis) {
        narrow.set(true);
        grace = timer.schedule(this::end, graceMillis, TimeUnit.MILLISECONDS);
    }

    /** Whether the node reads through one connection now. */
    boolean active() {
        return narrow.get();
    }

    /**
     * Starts the S3 fetch ({@code read}: a queue and its reads): while the start is narrow, through one connection of
     * {@code sized}'s range size over the works until it ends; else over the works with {@code sized}.
     */
    void start(BiConsumer<PieceQueue, RangeReads> read, RangeReads sized) {
        if (narrow.get()) {
            read.accept(queue, new RangeReads(1, sized.rangeBytes()));
        } else {
            read.accept(works, sized);
        }
    }

    /** What the start waited for came, or the grace passed: ends the narrow start (once). */
    void end() {
        if (!narrow.compareAndSet(true, false)) {
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
