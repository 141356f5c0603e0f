package io.s3broadcast.spi.cluster;

import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Collects the pieces this node stores within one flush window and hands them on as one batch, so the
 * exchange announces them to each peer with one flush (a {@code HAVE} per piece written, one
 * {@code flush()} per peer) instead of a write-and-flush per piece and peer. The first piece of a window
 * schedules the flush on the node's event loop: at the end of the current turn for a zero window, else
 * {@code window} later. Not thread-safe: call it on that loop.
 *
 * <p>Wiring (in the exchange, on its loop): where a stored piece is announced today, call
 * {@link #stored(int)} instead; the {@code emit} callback writes {@code HAVE} for each piece of the
 * batch to every peer and then flushes each peer once (writes that must precede a piece's {@code HAVE},
 * such as its digest announcement, are written before {@code stored} without a flush). Before
 * {@code DONE}, {@code WORKS_LEFT} or a goodbye, call {@link #flush()} so no announcement is overtaken.
 */
public final class HaveBatcher {

    private final ScheduledExecutorService loop;
    private final long windowNanos;
    private final Consumer<int[]> emit;
    private final BitSet seen = new BitSet();
    private int[] pieces = new int[16];
    private int size;
    private boolean scheduled;
    private boolean closed;

    /**
     * @param loop the event loop the exchange runs on (the flush runs there)
     * @param window how long pieces gather before the flush; zero: until the end of the current turn
     * @param emit receives each batch: the pieces stored in the window, in the order stored, each once
     */
    public HaveBatcher(ScheduledExecutorService loop, Duration window, Consumer<int[]> emit) {
        this.loop = Objects.requireNonNull(loop, "loop");
        Objects.requireNonNull(window, "window");
        if (window.isNegative()) {
            throw new IllegalArgumentException("window must be >= 0, was " + window);
        }
        this.windowNanos = window.toNanos();
        this.emit = Objects.requireNonNull(emit, "emit");
    }

    /** {@code piece} is stored: it goes into the current batch (once, however often it is reported). */
    public void stored(int piece) {
        if (piece < 0) {
            throw new IndexOutOfBoundsException("piece " + piece + " < 0");
        }
        if (closed || seen.get(piece)) {
            return;
        }
        seen.set(piece);
        if (size == pieces.length) {
            pieces = Arrays.copyOf(pieces, size * 2);
        }
        pieces[size++] = piece;
        if (!scheduled) {
            scheduled = true;
            if (windowNanos == 0) {
                loop.execute(this::flushScheduled);
            } else {
                loop.schedule(this::flushScheduled, windowNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Emits the pending batch now, if there is one (the scheduled flush then finds nothing). */
    public void flush() {
        if (size == 0) {
            return;
        }
        int[] batch = Arrays.copyOf(pieces, size);
        size = 0;
        seen.clear();
        emit.accept(batch);
    }

    /** Pieces waiting for the next flush. */
    public int pending() {
        return size;
    }

    /** Drops what is pending and ignores later pieces (the run is over). */
    public void close() {
        closed = true;
        size = 0;
        seen.clear();
    }

    private void flushScheduled() {
        scheduled = false;
        if (!closed) {
            flush();
        }
    }
}
