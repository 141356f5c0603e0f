package io.s3broadcast.p2p.cluster;

/**
 * The socket send buffer of one peer connection: small while the connection is slow, grown with the rate it
 * carries pieces at. Whatever this node writes to a peer ({@code REQUEST}s, {@code HAVE}s, {@code CHOKE}) waits
 * behind the bytes not yet sent in the socket; with the operating system's own sizing those were up to 1.9 MB per
 * connection on the 10 MB/s netns fleet, 0.3-0.6 s of a connection's share, and requests that came that late
 * left the link idle (docs/bench.md, "Where piece exchange loses link time"). So a connection starts at
 * {@link #INITIAL} and the buffer follows the rate measured over each {@link #WINDOW_NANOS}: {@link #QUEUE_NANOS}
 * of it, within {@code [INITIAL, MAX]}, up or down. A buffer that holds back a fast connection (on a round trip
 * shorter than the queue time) lets through more than {@code QUEUE_NANOS} of its rate, so it grows, by the queue
 * time over the round trip each window, until it does not. (Only growing was measured too: a connection that
 * once carried 10 MB/s kept its larger buffer, and the fleet's links carried 9.38 MB/s instead of 9.49.)
 *
 * <p>On the connection's loop only; time is the caller's.
 */
final class SendBuffer {

    /** The send buffer a peer connection starts with ({@code SO_SNDBUF}; Linux doubles it for its bookkeeping). */
    static final int INITIAL = 64 * 1024;
    /** The largest send buffer asked for (Linux also caps it at {@code net.core.wmem_max}). */
    static final int MAX = 4 << 20;
    /** How much of the connection's rate the buffer holds. */
    static final long QUEUE_NANOS = 20_000_000L;
    /** The rate is measured over windows at least this long. */
    static final long WINDOW_NANOS = 200_000_000L;

    private int size = INITIAL;
    private long windowStart = Long.MIN_VALUE;
    private long windowBytes;

    /** The send buffer asked for now. */
    int size() {
        return size;
    }

    /**
     * {@code bytes} of piece went into the socket by {@code nanos}: the new size to ask for when a window ended
     * with the buffer to change, else 0.
     */
    int written(long bytes, long nanos) {
        if (windowStart == Long.MIN_VALUE) {
            // The first piece's time says little (the connection may have been idle before it): the window starts.
            windowStart = nanos;
            return 0;
        }
        windowBytes += bytes;
        long elapsed = nanos - windowStart;
        if (elapsed < WINDOW_NANOS) {
            return 0;
        }
        double bytesPerNano = (double) windowBytes / elapsed;
        windowStart = nanos;
        windowBytes = 0;
        int want = (int) Math.max(INITIAL, Math.min(MAX, bytesPerNano * QUEUE_NANOS));
        if (want == size) {
            return 0;
        }
        size = want;
        return size;
    }
}
