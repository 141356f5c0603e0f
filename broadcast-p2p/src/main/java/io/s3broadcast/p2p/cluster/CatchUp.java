package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a node that is behind its peers catch up: while it holds fewer pieces than its peers' median by more than
 * a margin ({@link #margin}), its uploads are paced ({@link UploadPacer}) at {@code share} of the highest rate they
 * reached ({@link #WINDOW_NANOS} windows); otherwise they go as fast as the link takes them.
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
    /** The upload rate is measured over windows this long; the highest is the link's rate as far as is known. */
    static final long WINDOW_NANOS = 2_000_000_000L;

    private final UploadPacer pacer;
    private final Ticker ticker;
    private final double share;
    private final int margin;
    private final String name;
    /** Samples of (time, bytes taken), oldest first; the first is the newest one a window or more ago. */
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();
    private double peak;

    /**
     * @param share the fraction of the highest upload rate a node behind its peers uploads at; 1 turns pacing off
     * @param pieceCount the object's pieces, of which {@link #margin} is the margin
     * @param name the run, for the log
     */
    CatchUp(UploadPacer pacer, Ticker ticker, double share, int pieceCount, String name) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("share must be in (0, 1], was " + share);
        }
        this.pacer = pacer;
        this.ticker = ticker;
        this.share = share;
        this.margin = margin(pieceCount);
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

    private void measure() {
        long now = ticker.read();
        samples.addLast(new long[] {now, pacer.taken()});
        while (samples.size() > 2 && now - secondOldest()[0] >= WINDOW_NANOS) {
            samples.pollFirst();
        }
        long[] first = samples.peekFirst();
        long elapsed = now - first[0];
        if (elapsed >= WINDOW_NANOS) {
            peak = Math.max(peak, (samples.peekLast()[1] - first[1]) * 1e9 / elapsed);
        }
    }

    private long[] secondOldest() {
        var it = samples.iterator();
        it.next();
        return it.next();
    }

    private static int median(int[] values) {
        Arrays.sort(values);
        return values[values.length / 2];
    }
}
