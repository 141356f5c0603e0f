package io.s3broadcast.s3;

/**
 * What the reads of one fetch measured, for what a new GET may expect: its rate, the mean of the rates reads had
 * (each GET draws its own), and its wait for the first byte, the mean of the waits reads had. Reads count once
 * they finished; those in flight count towards the rate once measured for {@link TailHedge#MIN_MEASURED_SECONDS}.
 *
 * <p>Threads: any; the sums of finished reads are kept under this object's lock.
 */
final class ReadRates {

    /** First-byte wait assumed before one is measured. */
    static final double DEFAULT_FIRST_BYTE_SECONDS = 0.05;

    // guarded by this
    private double finishedRates;
    private int finishedReads;
    private double firstByteSeconds;
    private int firstBytes;

    /** {@code read} finished at {@code now} (ticker nanos); a read that had no byte tells nothing. */
    void finished(ReadProgress read, long now) {
        long first = read.firstByteNanos();
        if (first < 0) {
            return;
        }
        double active = seconds(now - first);
        synchronized (this) {
            firstByteSeconds += seconds(first - read.startNanos());
            firstBytes++;
            if (active >= TailHedge.MIN_MEASURED_SECONDS) {
                finishedRates += read.received() / active;
                finishedReads++;
            }
        }
    }

    /** The expected rate of a new GET at {@code now}, given the reads in flight (bytes/s); 0 when none measured. */
    double newReadRate(Iterable<? extends ReadProgress> inFlight, long now) {
        double sum;
        int n;
        synchronized (this) {
            sum = finishedRates;
            n = finishedReads;
        }
        for (ReadProgress r : inFlight) {
            long first = r.firstByteNanos();
            double measured = first < 0 ? 0 : seconds(now - first);
            if (measured >= TailHedge.MIN_MEASURED_SECONDS) {
                sum += r.received() / measured;
                n++;
            }
        }
        return n == 0 ? 0 : sum / n;
    }

    /** The expected wait of a new GET for its first byte (seconds). */
    synchronized double firstByteSeconds() {
        return firstBytes == 0 ? DEFAULT_FIRST_BYTE_SECONDS : firstByteSeconds / firstBytes;
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
