package io.s3broadcast.s3;

/**
 * When to hedge a range in flight, and where to cut it. A connection with nothing left to start may take
 * over the unreceived tail of a range that reads much slower than a new request would: the slow GET keeps
 * the bytes up to the cut, a new GET reads the rest, and the cut is placed where both are predicted to end
 * together (so no byte is read twice; the slow GET is abandoned at the cut).
 *
 * <p>With {@code R} bytes left, the slow GET at rate {@code v}, a new one expected at rate {@code h} after
 * {@code L} seconds to its first byte: alone the slow GET needs {@code R / v}, a new one {@code L + R / h}. It
 * is hedged when {@code R / v > SLOWER * (L + R / h)} and that saves at least {@link #MIN_GAIN_SECONDS};
 * it keeps {@code x = v (L h + R) / (v + h)} bytes, where {@code x / v = L + (R - x) / h}.
 */
final class TailHedge {

    /** A range is hedged when alone it would take this many times what a new request would. */
    static final double SLOWER = 2.0;
    /** Nor unless the hedge is predicted to save at least this much. */
    static final double MIN_GAIN_SECONDS = 0.25;
    /**
     * Neither part is smaller than this (nor than a quarter piece, for small pieces), and the cut is at least
     * this far ahead of the slow GET.
     */
    static final long MIN_PART_BYTES = 64 << 10;
    /** A fetch hedges once, and once more for every this many bytes it read. */
    static final long BYTES_PER_HEDGE = 64L << 20;
    /** A fetch reading at more than this fraction of its best rate so far does not hedge: its link is busy. */
    static final double BUSY = 0.75;
    /** A rate measured over less than this is not trusted. */
    static final double MIN_MEASURED_SECONDS = 0.1;

    private TailHedge() {
    }

    /** The smallest part for pieces of {@code pieceSize} bytes. */
    static long minPart(int pieceSize) {
        return Math.max(1, Math.min(MIN_PART_BYTES, pieceSize / 4));
    }

    /**
     * Where to cut a range in flight, or -1 to leave it.
     *
     * @param position the byte the range is at
     * @param end one past its last byte
     * @param rate its measured rate (bytes/s; 0 when it has had no byte)
     * @param measuredSeconds how long its rate was measured over (since its first byte; since its start when none came)
     * @param newRate the rate a new request is expected to read at (bytes/s; 0 when not known)
     * @param firstByteSeconds how long a new request is expected to wait for its first byte
     * @param minPart the smallest part ({@link #minPart})
     */
    static long cut(long position, long end, double rate, double measuredSeconds, double newRate, double firstByteSeconds,
            long minPart) {
        long left = end - position;
        if (newRate <= 0 || left < 2 * minPart || measuredSeconds < Math.max(MIN_MEASURED_SECONDS, firstByteSeconds)) {
            return -1;
        }
        double alone = rate > 0 ? left / rate : Double.POSITIVE_INFINITY;
        double fresh = firstByteSeconds + left / newRate;
        if (!(alone > SLOWER * fresh) || alone - fresh < MIN_GAIN_SECONDS) {
            return -1;
        }
        double keep = rate * (firstByteSeconds * newRate + left) / (rate + newRate);
        long kept = Math.max(minPart, (long) keep);
        if (left - kept < minPart) {
            return -1;
        }
        return position + kept;
    }
}
