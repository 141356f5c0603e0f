package io.s3broadcast.internal;

import com.google.common.base.Ticker;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.SourceListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts a fetch's progress and tells its listeners, one call at a time, catching what they throw.
 * The rate is over a sliding window of recent piece completions. For {@code fetchAll} one tracker counts the
 * whole set ({@link #batch}) and each object's tracker ({@link #part}) passes what it counts on to it, so the
 * listeners see one total over all objects.
 */
final class ProgressTracker implements SourceListener {

    private static final Logger LOG = LoggerFactory.getLogger(ProgressTracker.class);
    private static final int WINDOW = 32;

    private final List<FetchListener> listeners;
    private final Ticker ticker;
    private final long startNanos;
    private final AtomicLong bytesFromSource = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong hedges = new AtomicLong();
    private final long[] windowNanos = new long[WINDOW];
    private final long[] windowBytes = new long[WINDOW];
    private int windowCount;
    private final ProgressTracker batch;
    private final long listedBytes;
    private final int listedPieces;
    private volatile PieceLayout layout;
    private long totalBytes = -1;
    private int totalPieces = -1;
    private long transferredBytes;
    private int completedPieces;

    ProgressTracker(List<FetchListener> listeners, Ticker ticker) {
        this(listeners, ticker, null, 0, 0);
    }

    private ProgressTracker(List<FetchListener> listeners, Ticker ticker, ProgressTracker batch, long listedBytes,
            int listedPieces) {
        this.listeners = listeners;
        this.ticker = ticker;
        this.startNanos = ticker.read();
        this.batch = batch;
        this.listedBytes = listedBytes;
        this.listedPieces = listedPieces;
    }

    /**
     * The tracker of one object of this batch, listed with {@code layout}: it tells {@code listeners} (the
     * request's own) about the object and passes bytes and pieces on to this one, whose listeners hear the total.
     */
    ProgressTracker part(List<FetchListener> listeners, PieceLayout listed) {
        return new ProgressTracker(listeners, ticker, this, listed.objectSize(), listed.pieceCount());
    }

    /** Starts a batch of objects listed with these sizes: one {@code fetchInitiated} with their total. */
    synchronized void initiated(long totalBytes, int totalPieces) {
        this.totalBytes = totalBytes;
        this.totalPieces = totalPieces;
        FetchProgress p = snapshot();
        tell(l -> l.fetchInitiated(p));
    }

    Duration elapsed() {
        return Duration.ofNanos(ticker.read() - startNanos);
    }

    long bytesFromSource() {
        return bytesFromSource.get();
    }

    /** Tails of slow GETs given to new ones. */
    int hedges() {
        return (int) hedges.get();
    }

    long retries() {
        return retries.get();
    }

    synchronized void initiated(PieceLayout layout) {
        this.layout = layout;
        this.totalBytes = layout.objectSize();
        this.totalPieces = layout.pieceCount();
        FetchProgress p = snapshot();
        tell(l -> l.fetchInitiated(p));
        if (batch != null) {
            batch.resized(layout.objectSize() - listedBytes, layout.pieceCount() - listedPieces);
        }
    }

    /** An object of the batch is not the size it was listed with (it changed in between). */
    private synchronized void resized(long bytes, int pieces) {
        totalBytes += bytes;
        totalPieces += pieces;
    }

    @Override
    public void bytesReceived(long bytes) {
        bytesFromSource.addAndGet(bytes);
        forward(l -> l.bytesFromS3(bytes), b -> b.bytesReceived(bytes));
    }

    @Override
    public void bytesFromPeers(long bytes) {
        forward(l -> l.bytesFromPeers(bytes), b -> b.bytesFromPeers(bytes));
    }

    @Override
    public void peerConnected(String nodeId) {
        forward(l -> l.peerConnected(nodeId), b -> b.peerConnected(nodeId));
    }

    @Override
    public void peerDisconnected(String nodeId) {
        forward(l -> l.peerDisconnected(nodeId), b -> b.peerDisconnected(nodeId));
    }

    /** Tells this fetch's listeners (one call at a time), then the batch's tracker, if any. */
    private void forward(java.util.function.Consumer<FetchListener> call,
            java.util.function.Consumer<ProgressTracker> toBatch) {
        if (!listeners.isEmpty()) {
            synchronized (this) {
                tell(call);
            }
        }
        if (batch != null) {
            toBatch.accept(batch);
        }
    }

    @Override
    public void pieceStored(int piece) {
        int length = layout.length(piece);
        stored(length, 1);
        if (batch != null) {
            batch.stored(length, 1);
        }
    }

    private synchronized void stored(long bytes, int pieces) {
        completedPieces += pieces;
        transferredBytes += bytes;
        int slot = windowCount++ % WINDOW;
        windowNanos[slot] = ticker.read();
        windowBytes[slot] = transferredBytes;
        FetchProgress p = snapshot();
        tell(l -> l.bytesTransferred(p));
    }

    @Override
    public void hedged(long tailBytes) {
        hedges.incrementAndGet();
        if (batch != null) {
            batch.hedged(tailBytes);
        }
    }

    @Override
    public void retrying(PieceRun run, int attempt, long delayMillis, Throwable cause) {
        retries.incrementAndGet();
        LOG.debug("retrying pieces [{}, {}) in {} ms, attempt {}: {}", run.first(), run.end(), delayMillis, attempt,
                cause.toString());
    }

    /** The destination already holds the object ({@code size} bytes): it counts whole towards a batch's total. */
    void unchanged(long size) {
        if (batch != null) {
            batch.resized(size - listedBytes, 0);
            batch.stored(size, listedPieces);
        }
    }

    /** The fetch is done; a batch's listeners hear of each object's result. */
    void completed(CompletedFetch result) {
        synchronized (this) {
            tell(l -> l.fetchComplete(result));
        }
        if (batch != null) {
            batch.completed(result);
        }
    }

    /** The fetch failed; a batch hears of its own failure once, through its own tracker. */
    synchronized void failed(Throwable cause) {
        tell(l -> l.fetchFailed(cause));
    }

    synchronized FetchProgress snapshot() {
        return new FetchProgress(totalBytes, transferredBytes, totalPieces, completedPieces, bytesFromSource.get(),
                elapsed(), rate());
    }

    private double rate() {
        int n = Math.min(windowCount, WINDOW);
        if (n == 0) {
            return 0;
        }
        int newest = (windowCount - 1) % WINDOW;
        int oldest = windowCount <= WINDOW ? -1 : windowCount % WINDOW;
        long fromNanos = oldest < 0 ? startNanos : windowNanos[oldest];
        long fromBytes = oldest < 0 ? 0 : windowBytes[oldest];
        long nanos = windowNanos[newest] - fromNanos;
        return nanos <= 0 ? 0 : (windowBytes[newest] - fromBytes) * 1e9 / nanos;
    }

    private void tell(java.util.function.Consumer<FetchListener> call) {
        for (FetchListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException e) {
                LOG.warn("fetch listener {} threw; ignored", l, e);
            }
        }
    }
}
