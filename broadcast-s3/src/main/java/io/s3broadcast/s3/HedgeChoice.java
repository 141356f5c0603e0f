package io.s3broadcast.s3;

/**
 * A fetch's hedges: whether it may hedge now, which read in flight it cuts and where, and the tally of those it
 * took. Every cut drops what the slow GET had already sent past it, so hedges are few: one, and one more per
 * {@link TailHedge#BYTES_PER_HEDGE} read. Of the reads {@link TailHedge} would cut, the one predicted to end last
 * on its own is cut, against a new GET expected as the fetch's {@link ReadRates} say; a read that had no byte yet
 * is measured since its start, at rate 0.
 *
 * <p>Threads: any; the tally is under this object's lock (the rates keep theirs).
 */
final class HedgeChoice {

    /** Cut {@code read} at byte {@code at}: a new GET reads from there to its end. */
    record Cut<R extends ReadProgress>(R read, long at) {
    }

    /** What the hedges took: how many, and the bytes of the tails new GETs read. */
    record Tally(int hedges, long bytes) {
    }

    private final ReadRates rates;
    private final long minPart;
    // guarded by this
    private int hedges;
    private long hedgedBytes;

    /** Chooses among reads of pieces of {@code pieceSize} bytes. */
    HedgeChoice(ReadRates rates, int pieceSize) {
        this.rates = rates;
        this.minPart = TailHedge.minPart(pieceSize);
    }

    /**
     * Whether the fetch may hedge once more, having read {@code bytesRead}; not while its link is {@code busy}
     * (it reads near the best rate it had: another GET would only share the link).
     */
    synchronized boolean allows(long bytesRead, boolean busy) {
        return hedges < 1 + bytesRead / TailHedge.BYTES_PER_HEDGE && !busy;
    }

    /** A cut was made: a new GET reads the {@code tailBytes} after it. */
    synchronized void took(long tailBytes) {
        hedges++;
        hedgedBytes += tailBytes;
    }

    /** The hedges taken so far. */
    synchronized Tally tally() {
        return new Tally(hedges, hedgedBytes);
    }

    /** The read to cut at {@code now} (ticker nanos), and where; null to cut none. */
    <R extends ReadProgress> Cut<R> slowest(Iterable<R> inFlight, long now) {
        double fresh = rates.newReadRate(inFlight, now);
        double wait = rates.firstByteSeconds();
        R slowest = null;
        long cut = -1;
        double slowestSeconds = 0;
        for (R r : inFlight) {
            long end = r.endByte();
            long position = r.position();
            long first = r.firstByteNanos();
            double measured = seconds(now - (first >= 0 ? first : r.startNanos()));
            double rate = first >= 0 && measured > 0 ? r.received() / measured : 0;
            long c = TailHedge.cut(position, end, rate, measured, fresh, wait, minPart);
            if (c < 0) {
                continue;
            }
            double alone = rate > 0 ? (end - position) / rate : Double.POSITIVE_INFINITY;
            if (slowest == null || alone > slowestSeconds) {
                slowest = r;
                cut = c;
                slowestSeconds = alone;
            }
        }
        return slowest == null ? null : new Cut<>(slowest, cut);
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
