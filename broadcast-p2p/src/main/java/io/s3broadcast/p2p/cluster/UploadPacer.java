package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;

/**
 * The gate every piece a run serves passes on its way into a socket: counts the bytes that went into the sockets in
 * full ({@link #sent}), and while a rate is set
 * ({@link CatchUp} sets one on a node behind its peers) lets them through at that rate, all of the run's
 * connections together. A piece either goes now or is told how long to wait. Pieces are taken whole: one larger
 * than {@link #BURST_NANOS} of the rate still goes at once when the gate is free, and the pieces after it wait for
 * its bytes' time.
 *
 * <p>A virtual clock, not a bucket: each piece taken moves {@code nextFree} on by its bytes over the rate, and a piece
 * may go once {@code nextFree} is not in the future; {@code nextFree} is kept at most {@link #BURST_NANOS} behind
 * now, the most an idle gate lets through at once. Thread-safe: the connections' loops ask, the run's loop sets the
 * rate; time is the injected ticker's.
 */
final class UploadPacer {

    /** The most time a paced gate lets pass at once after it was idle: this long of the rate. */
    static final long BURST_NANOS = 50_000_000L;

    private final Ticker ticker;
    // guarded by this
    private double bytesPerNano;
    private long nextFree;
    private long sent;

    UploadPacer(Ticker ticker) {
        this.ticker = ticker;
    }

    /**
     * Lets {@code bytes} of a piece through, or not: 0 when they may go now (then they are taken), else the
     * nanoseconds to wait before asking again (nothing taken).
     */
    synchronized long delayNanos(long bytes) {
        if (bytesPerNano > 0) {
            long now = ticker.read();
            if (nextFree - now > 0) {
                return nextFree - now;
            }
            nextFree = Math.max(nextFree, now - BURST_NANOS) + (long) Math.ceil(bytes / bytesPerNano);
        }
        return 0;
    }

    /** Paces the pieces at {@code bytesPerSecond} from now on; 0 lets them through as they come. */
    synchronized void rate(double bytesPerSecond) {
        if (!(bytesPerSecond >= 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("bytesPerSecond must be >= 0 and finite, was " + bytesPerSecond);
        }
        double next = bytesPerSecond / 1e9;
        if (next > 0 && bytesPerNano == 0) {
            nextFree = ticker.read(); // paced from now: nothing owed from before
        }
        bytesPerNano = next;
    }

    /** The rate pieces are paced at, bytes per second; 0 when they are not. */
    synchronized double rate() {
        return bytesPerNano * 1e9;
    }

    /**
     * A piece of {@code bytes} let through went into its socket in full. Counted then, not when it was let through:
     * a piece let through waits behind the one before it on its connection for seconds when many connections share
     * the link, so the bytes let through over a few seconds overstate the link's rate (session 40: peaks of 7.5-8
     * MB/s on 5 MB/s links, 15 connections of 1 MiB pieces each).
     */
    synchronized void sent(long bytes) {
        sent += bytes;
    }

    /** Bytes of pieces that went into the sockets in full so far. */
    synchronized long sent() {
        return sent;
    }
}
