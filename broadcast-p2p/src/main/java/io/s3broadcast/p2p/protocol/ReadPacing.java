package io.s3broadcast.p2p.protocol;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * When to read a connection again while a long frame is still arriving: not as soon as a few bytes are in, but
 * once a batch of them should be, at the rate the connection has been delivering. One instance per connection.
 *
 * <p>A socket is readable from its first byte, so on a slow link each read woke the node's event loop for a few
 * kilobytes: at N = 16 on 2.5 MB/s links, a node's reads were 4 KB at the median, and each one ran the whole read
 * path of the pipeline (docs/results.md, session 29). While the rest of a frame is still to come nothing else can
 * arrive on the connection (TCP keeps the order), so waiting for more of it delays no other message.
 *
 * <ul>
 * <li><b>Batch.</b> The wait is the time {@link #BATCH_BYTES}, or the rest of the frame if less, takes at the
 *     connection's rate: the frame's last bytes are read about when they arrive.
 * <li><b>Bounds.</b> No wait below {@link #MIN_WAIT_NANOS} (a fast link's reads are large anyway), none above
 *     {@link #MAX_WAIT_NANOS}. The batch is about what a fresh socket's receive window holds (half of Linux's
 *     default 128 KiB buffer): a rate estimated too low can make the peer's sending stop until the read, for at
 *     most the longest wait. A batch of 32 KiB for at most 100 ms measured no better (docs/results.md, session 29).
 * <li><b>Rate.</b> What arrived between the ends of two reads over the time between them, smoothed
 *     ({@link #SMOOTHING}), when the first of the two ended inside a frame: the rest of that frame was on its way
 *     all along. A read that ends between frames starts no sample, since the peer may then have had nothing to
 *     send for a while: counted in, a pause between frames (at the start of a run, or while the next request
 *     travels) made the link look slow, and the next frame's reads waited up to the longest wait each. No wait
 *     until a first rate is known.
 * </ul>
 */
final class ReadPacing {

    /** Bytes a paced read should find waiting: 64 KiB. */
    static final int BATCH_BYTES = 64 << 10;
    /** Shortest wait worth making: 2 ms. */
    static final long MIN_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Longest wait: 200 ms. */
    static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** Weight of the latest rate sample. */
    static final double SMOOTHING = 0.5;

    private static final ReadPacing OFF = new ReadPacing(null);

    private final LongSupplier clock;
    private long received;
    /** Whether the last read ended inside a frame: the time from its end to the next read's is a rate sample. */
    private boolean insideFrame;
    private long lastReadEnd;
    private double bytesPerNano;

    private ReadPacing(LongSupplier clock) {
        this.clock = clock;
    }

    /** Pacing on {@code clock} (nanoseconds). */
    static ReadPacing on(LongSupplier clock) {
        return new ReadPacing(Objects.requireNonNull(clock, "clock"));
    }

    /** No pacing: every read as soon as bytes arrive. */
    static ReadPacing off() {
        return OFF;
    }

    /** {@code bytes} came in from the connection. */
    void received(int bytes) {
        received += bytes;
    }

    /**
     * A read has ended with {@code pendingFrameBytes} of an incomplete frame still to come (0: none): how long to
     * wait before reading again, in nanoseconds (0: read as bytes arrive).
     */
    long waitNanos(long pendingFrameBytes) {
        if (clock == null) {
            return 0;
        }
        long now = clock.getAsLong();
        if (insideFrame && now > lastReadEnd) {
            double sample = (double) received / (now - lastReadEnd);
            bytesPerNano = bytesPerNano == 0 ? sample : SMOOTHING * sample + (1 - SMOOTHING) * bytesPerNano;
        }
        insideFrame = pendingFrameBytes > 0;
        lastReadEnd = now;
        received = 0;
        if (pendingFrameBytes <= 0 || bytesPerNano <= 0) {
            return 0;
        }
        long wait = (long) (Math.min(pendingFrameBytes, BATCH_BYTES) / bytesPerNano);
        return wait < MIN_WAIT_NANOS ? 0 : Math.min(wait, MAX_WAIT_NANOS);
    }
}
