package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a node that is behind its peers catch up: while it holds fewer pieces than its peers' median by more than
 * a margin ({@link #margin}) and takes its pieces in more slowly than it has ({@link #FULL} of the highest piece
 * rate over {@link #DOWN_WINDOW_NANOS} windows), its uploads are paced ({@link UploadPacer}) at {@code share} of the
 * highest rate they reached ({@link #WINDOW_NANOS} windows); otherwise they go as fast as the link takes them.
 *
 * <p>Why: a node's downloads are acknowledged over its upload link. A full upload link keeps a queue (on the fleet,
 * up to its filter's 100 ms), every acknowledgement of the node's downloads waits in it, and its downloads then
 * lose against the other downloads of the same uploaders: the last node of a run had its download link at 69-85%
 * for seconds in phase 2 with its requests out at every peer, while its upload was full (docs/results.md, session
 * 33). Pacing its uploads a little below the link keeps that queue empty while it catches up; the nodes it then
 * serves less are ahead of it. A node behind only because its own download link is slower than the others' (it
 * takes pieces in as fast as it ever did) gains nothing from it and is not paced: pacing it the whole run made the
 * faster nodes of a mixed fleet finish later (docs/results.md, session 34).
 *
 * <p>On the run's loop; time is the injected ticker's.
 */
final class CatchUp {

    private static final Logger LOG = LoggerFactory.getLogger(CatchUp.class);
    /** The upload rate is measured over windows this long; the highest is the link's rate as far as is known. */
    static final long WINDOW_NANOS = 2_000_000_000L;
    /**
     * The pieces' arrival rate is measured over windows this long: whole pieces arrive, so a window holds a few
     * dozen of them on the fleet (256 KiB pieces at 2.5 MB/s: ~38), and the count's steps stay a few percent.
     */
    static final long DOWN_WINDOW_NANOS = 4_000_000_000L;
    /** Below this fraction of its highest piece rate a node takes its pieces in more slowly than it can. */
    static final double FULL = 0.9;

    private final UploadPacer pacer;
    private final Ticker ticker;
    private final double share;
    private final int margin;
    private final String name;
    private final SlidingRate uploads = new SlidingRate(WINDOW_NANOS);
    private final SlidingRate downloads = new SlidingRate(DOWN_WINDOW_NANOS);

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
     * Measures the upload and piece rates and paces the uploads or not: {@code mine} pieces held (announced) here,
     * {@code peers} what each connected peer holds (the array may be reordered), {@code complete} whether this node
     * has every piece.
     */
    void tick(int mine, int[] peers, boolean complete) {
        long now = ticker.read();
        uploads.add(now, pacer.taken());
        downloads.add(now, mine);
        int median = peers.length > 0 ? median(peers) : 0;
        boolean behind = share < 1 && !complete && peers.length >= 2 && uploads.peak() > 0 && mine < median - margin;
        boolean slowed = downloads.rate() >= 0 && downloads.rate() < FULL * downloads.peak();
        double rate = behind && slowed ? share * uploads.peak() : 0;
        if ((rate > 0) != (pacer.rate() > 0) && LOG.isDebugEnabled()) {
            LOG.debug(rate > 0
                    ? "{}: {} pieces, the peers' median {}, {} pieces/s (at most {}): uploads paced at {} B/s ({} of peak)"
                    : "{}: {} pieces, the peers' median {}, {} pieces/s (at most {}): uploads no longer paced",
                    name, mine, median, Math.round(downloads.rate()), Math.round(downloads.peak()), Math.round(rate),
                    share);
        }
        if (rate > 0 || pacer.rate() > 0) {
            pacer.rate(rate);
        }
    }

    /** The highest upload rate measured so far, bytes per second (0 before a window has passed). */
    double peakBytesPerSecond() {
        return uploads.peak();
    }

    private static int median(int[] values) {
        Arrays.sort(values);
        return values[values.length / 2];
    }
}
