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
 * The rate is over a sliding window of recent piece completions.
 */
final class ProgressTracker implements SourceListener {

    private static final Logger LOG = LoggerFactory.getLogger(ProgressTracker.class);
    private static final int WINDOW = 32;

    private final List<FetchListener> listeners;
    private final Ticker ticker;
    private final long startNanos;
    private final AtomicLong bytesFromSource = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final long[] windowNanos = new long[WINDOW];
    private final long[] windowBytes = new long[WINDOW];
    private int windowCount;
    private volatile PieceLayout layout;
    private long transferredBytes;
    private int completedPieces;

    ProgressTracker(List<FetchListener> listeners, Ticker ticker) {
        this.listeners = listeners;
        this.ticker = ticker;
        this.startNanos = ticker.read();
    }

    Duration elapsed() {
        return Duration.ofNanos(ticker.read() - startNanos);
    }

    long bytesFromSource() {
        return bytesFromSource.get();
    }

    long retries() {
        return retries.get();
    }

    synchronized void initiated(PieceLayout layout) {
        this.layout = layout;
        FetchProgress p = snapshot();
        tell(l -> l.fetchInitiated(p));
    }

    @Override
    public void bytesReceived(long bytes) {
        bytesFromSource.addAndGet(bytes);
    }

    @Override
    public synchronized void pieceStored(int piece) {
        completedPieces++;
        transferredBytes += layout.length(piece);
        int slot = windowCount++ % WINDOW;
        windowNanos[slot] = ticker.read();
        windowBytes[slot] = transferredBytes;
        FetchProgress p = snapshot();
        tell(l -> l.bytesTransferred(p));
    }

    @Override
    public void retrying(PieceRun run, int attempt, long delayMillis, Throwable cause) {
        retries.incrementAndGet();
        LOG.debug("retrying pieces [{}, {}) in {} ms, attempt {}: {}", run.first(), run.end(), delayMillis, attempt,
                cause.toString());
    }

    synchronized void completed(CompletedFetch result) {
        tell(l -> l.fetchComplete(result));
    }

    synchronized void failed(Throwable cause) {
        tell(l -> l.fetchFailed(cause));
    }

    synchronized FetchProgress snapshot() {
        PieceLayout l = layout;
        return new FetchProgress(l == null ? -1 : l.objectSize(), transferredBytes, l == null ? -1 : l.pieceCount(),
                completedPieces, bytesFromSource.get(), elapsed(), rate());
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
