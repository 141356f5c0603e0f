package io.s3broadcast.s3;

/**
 * Which read in flight a fetch hedges, and where it cuts it: of the reads {@link TailHedge} would cut, the one
 * predicted to end last on its own, against a new GET expected as its {@link ReadRates} say. A read that had no
 * byte yet is measured since its start, at rate 0.
 *
 * <p>Threads: any; it keeps no state of its own (the rates keep theirs).
 */
final class HedgeChoice {

    /** Cut {@code read} at byte {@code at}: a new GET reads from there to its end. */
    record Cut<R extends ReadProgress>(R read, long at) {
    }

    private final ReadRates rates;
    private final long minPart;

    /** Chooses among reads of pieces of {@code pieceSize} bytes. */
    HedgeChoice(ReadRates rates, int pieceSize) {
        this.rates = rates;
        this.minPart = TailHedge.minPart(pieceSize);
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
