package io.s3broadcast.internal;

import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flushes the temporary file to disk while it fills, every {@code every} bytes of pieces landed, so the fsync of
 * {@link PieceStore#commit()} finds little left to write instead of the whole object. One flush at a time, on
 * {@code executor}; a flush that fails is only logged (the commit's own fsync reports what matters). The
 * durability guarantee is the commit's, unchanged: this only moves the writing earlier.
 */
final class ProgressiveSync implements PieceStore.PieceObserver {

    private static final Logger LOG = LoggerFactory.getLogger(ProgressiveSync.class);

    private final PieceStore store;
    private final long every;
    private final Executor executor;
    private final Object lock = new Object();

    // guarded by lock
    private long unsynced;
    private boolean syncing;
    private boolean stopped;

    ProgressiveSync(PieceStore store, long every, Executor executor) {
        if (every <= 0) {
            throw new IllegalArgumentException("every must be > 0, was " + every);
        }
        this.store = store;
        this.every = every;
        this.executor = executor;
    }

    /** Watches {@code store} from now on. */
    static ProgressiveSync start(PieceStore store, long every, Executor executor) {
        ProgressiveSync s = new ProgressiveSync(store, every, executor);
        store.observe(s);
        return s;
    }

    @Override
    public void pieceCompleted(int piece, int crc32c) {
        synchronized (lock) {
            unsynced += store.layout().length(piece);
            if (syncing || stopped || unsynced < every) {
                return;
            }
            syncing = true;
            unsynced = 0;
        }
        try {
            executor.execute(this::sync);
        } catch (RuntimeException e) {
            LOG.debug("cannot flush {} early: {}", store.tempFile(), e.toString());
            synchronized (lock) {
                syncing = false;
            }
        }
    }

    @Override
    public void pieceForgotten(int piece) {
        // Its bytes will be written again and counted when it completes again.
    }

    /** Stops flushing; a flush under way finishes. */
    void stop() {
        synchronized (lock) {
            stopped = true;
        }
        store.stopObserving(this);
    }

    private void sync() {
        try {
            FileChannel channel = store.channel();
            if (channel.isOpen()) {
                channel.force(false);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot flush {} early (the commit will): {}", store.tempFile(), e.toString());
        } finally {
            synchronized (lock) {
                syncing = false;
            }
        }
    }
}
