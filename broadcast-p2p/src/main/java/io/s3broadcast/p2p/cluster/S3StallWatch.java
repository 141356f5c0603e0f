package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.BroadcastException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Notices that phase 1's S3 fetch stores nothing: checks, every {@code limitMillis} at most, that a byte came from
 * S3 within {@code limitMillis} ({@link #STALL_MILLIS} in a run); if none did while the node has
 * peers, the fetch is stalled and the node gives up S3. A node alone keeps waiting (the source's own patient
 * retries), looked at again a whole period later. Checks run on the injected {@code timer} (the run's loop);
 * {@link #progress} may be called from any thread.
 */
final class S3StallWatch {

    /** What the watch looks at and tells. */
    interface Fetch {
        /** Whether a fetch is in flight and still to be watched (not closed, S3 not given up). */
        boolean watched();

        /** Whether the node has no peer to leave its share to. */
        boolean alone();

        /** The fetch stored nothing for the limit: {@code why} says so. */
        void stalled(BroadcastException why);
    }

    /**
     * A cluster node whose S3 fetch has stored nothing for this long, with peers connected, gives up S3 and
     * leaves its share to them (twice the default {@code firstByteTimeout}: a blackholed S3 is noticed after two
     * attempts instead of ten); a node alone keeps the source's own patient retries. The same bound applies to
     * a node that gave up S3 and waits for pieces nobody fetches ({@link ShareHandOff#stranded}).
     */
    static final long STALL_MILLIS = 20_000;

    private final ScheduledExecutorService timer;
    private final Ticker ticker;
    private final long limitNanos;
    private final Fetch fetch;
    /** Ticker nanos of the last byte from S3 (written by the S3 connections). */
    private volatile long lastProgress;
    private boolean scheduled;

    S3StallWatch(ScheduledExecutorService timer, Ticker ticker, long limitMillis, Fetch fetch) {
        this.timer = timer;
        this.ticker = ticker;
        this.limitNanos = TimeUnit.MILLISECONDS.toNanos(limitMillis);
        this.fetch = fetch;
    }

    /** Bytes arrived from S3, or a fetch starts (any thread). */
    void progress() {
        lastProgress = ticker.read();
    }

    /** Watches the fetch in flight, unless a check is scheduled already. */
    void watch() {
        if (scheduled) {
            return;
        }
        scheduled = true;
        long idleNow = ticker.read() - lastProgress;
        // Stalled already (a node alone, which keeps waiting): look again a whole period later.
        long wait = idleNow >= limitNanos ? limitNanos : limitNanos - idleNow;
        timer.schedule(this::check, wait, TimeUnit.NANOSECONDS);
    }

    private void check() {
        scheduled = false;
        if (!fetch.watched()) {
            return;
        }
        long idle = ticker.read() - lastProgress;
        if (idle < limitNanos || fetch.alone()) {
            watch();
            return;
        }
        fetch.stalled(new BroadcastException("no byte came from S3 for " + TimeUnit.NANOSECONDS.toMillis(idle)
                + " ms while reading this node's share (S3 unreachable from this node?)"));
    }
}
