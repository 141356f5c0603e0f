package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a node that is behind its peers catch up: while it holds fewer pieces than its peers' median by more than
 * a margin ({@link #margin}), its uploads are paced ({@link UploadPacer}) at {@code share} of the highest rate they
 * reached; otherwise they go as fast as the link takes them.
 *
 * <p>The rate is the bytes of pieces that went into the sockets in full ({@link UploadPacer#sent}) over windows one
 * after the other, each at least {@link #WINDOW_NANOS} long and carrying at least {@link #WINDOW_PIECES} pieces (or
 * {@link #MAX_WINDOW_NANOS} long, whichever comes first). Pieces are counted whole, so a window of a few pieces
 * reads high whenever several connections finish a piece in it. Counted as they were let through, over sliding 2 s
 * windows (ten pieces), the peak read 7.5-8 MB/s at 16 nodes, 1 GiB in 1 MiB pieces and 5 MB/s links, and pacing at
 * 0.9 of that did nothing (session 40). Over 64 pieces, in windows that do not slide, the error is a few percent.
 *
 * <p>Why: a node's downloads are acknowledged over its upload link. A full upload link keeps a queue (on the fleet,
 * up to its filter's 100 ms), every acknowledgement of the node's downloads waits in it, and its downloads then
 * lose against the other downloads of the same uploaders: the last node of a run had its download link at 69-85%
 * for seconds in phase 2 with its requests out at every peer, while its upload was full (docs/results.md, session
 * 33). Pacing its uploads a little below the link keeps that queue empty while it catches up; the nodes it then
 * serves less are ahead of it.
 *
 * <p>On the run's loop; time is the injected ticker's.
 */
final class CatchUp {

    private static final Logger LOG = LoggerFactory.getLogger(CatchUp.class);
    /** The upload rate is measured over windows at least this long; the highest is the link's rate as far as is known. */
    static final long WINDOW_NANOS = 2_000_000_000L;
    /** ... and carrying at least this many pieces, */
    static final int WINDOW_PIECES = 64;
    /** ... or this long, if the uploads are too slow for that. */
    static final long MAX_WINDOW_NANOS = 30_000_000_000L;

    private final UploadPacer pacer;
    private final Ticker ticker;
    private final double share;
    private final int margin;
    private final long windowBytes;
    private final String name;
    /** When the current window started (the ticker's time; MIN_VALUE before the first tick), and bytes sent then. */
    private long windowStart = Long.MIN_VALUE;
    private long windowStartSent;
    private double peak;

    /**
     * @param share the fraction of the highest upload rate a node behind its peers uploads at; 1 turns pacing off
     * @param pieceCount the object's pieces, of which {@link #margin} is the margin
     * @param pieceSize the object's piece size, bytes: a window carries {@link #WINDOW_PIECES} of them
     * @param name the run, for the log
     */
    CatchUp(UploadPacer pacer, Ticker ticker, double share, int pieceCount, long pieceSize, String name) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("share must be in (0, 1], was " + share);
        }
        this.pacer = pacer;
        this.ticker = ticker;
        this.share = share;
        this.margin = margin(pieceCount);
        this.windowBytes = WINDOW_PIECES * pieceSize;
        this.name = name;
    }

    /** How many pieces fewer than its peers' median a node holds before it counts as behind: 1/64 of them, at least 2. */
    static int margin(int pieceCount) {
        return Math.max(2, pieceCount / 64);
    }

    /**
     * Measures the upload rate and paces the uploads or not: {@code mine} pieces held (announced) here, {@code
     * peers} what each connected peer holds (the array may be reordered), {@code complete} whether this node has
     * every piece.
     */
    void tick(int mine, int[] peers, boolean complete) {
        measure();
        int median = peers.length > 0 ? median(peers) : 0;
        boolean behind = share < 1 && !complete && peers.length >= 2 && peak > 0 && mine < median - margin;
        double rate = behind ? share * peak : 0;
        if ((rate > 0) != (pacer.rate() > 0)) {
            LOG.debug(rate > 0 ? "{}: {} pieces, the peers' median {}: uploads paced at {} B/s ({} of their peak)"
                    : "{}: {} pieces, the peers' median {}: uploads no longer paced", name, mine, median,
                    Math.round(rate), share);
        }
        if (behind || pacer.rate() > 0) {
            pacer.rate(rate);
        }
    }

    /** The highest upload rate measured so far, bytes per second (0 before a window has passed). */
    double peakBytesPerSecond() {
        return peak;
    }

    /** Ends the current window once it is long enough and starts the next: its rate may be a new peak. */
    private void measure() {
        long now = ticker.read();
        long sent = pacer.sent();
        if (windowStart == Long.MIN_VALUE) {
            windowStart = now;
            windowStartSent = sent;
            return;
        }
        long elapsed = now - windowStart;
        if (elapsed >= MAX_WINDOW_NANOS || (elapsed >= WINDOW_NANOS && sent - windowStartSent >= windowBytes)) {
            peak = Math.max(peak, (sent - windowStartSent) * 1e9 / elapsed);
            windowStart = now;
            windowStartSent = sent;
        }
    }

    private static int median(int[] values) {
        Arrays.sort(values);
        return values[values.length / 2];
    }
}
