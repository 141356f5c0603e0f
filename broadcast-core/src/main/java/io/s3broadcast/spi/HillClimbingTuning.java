package io.s3broadcast.spi;

import java.time.Duration;

/**
 * The default {@link ConnectionTuning}: hill climbing on the measured aggregate rate.
 *
 * <ul>
 * <li><b>Climb.</b> After the first interval at the computed count it adds connections: doubling while each
 *     step raised the rate by at least {@link #RISE} (a slow start, so a short phase 1 reaches a good count
 *     within a few intervals), then one at a time.
 * <li><b>Hold.</b> A step that did not raise the rate is kept (it did not hurt) and climbing pauses for
 *     {@link #HOLD_INTERVALS} intervals, then probes one more connection.
 * <li><b>Back off.</b> A rate that falls by more than {@link #FALL} after a step takes the step back; 503
 *     SlowDown halves the count. Either holds, and the rate is measured afresh; climbing then goes on one at
 *     a time.
 * </ul>
 * The rate of one interval is noisy (each GET draws its own rate and ranges start and end), so only
 * clear rises and falls count.
 */
final class HillClimbingTuning implements ConnectionTuning {

    static final HillClimbingTuning DEFAULT = new HillClimbingTuning();

    /** How often the rate is measured. */
    static final Duration INTERVAL = Duration.ofMillis(250);
    /** A step counts as helping when the rate rose by this fraction. */
    static final double RISE = 0.05;
    /** A step is taken back when the rate fell by this fraction. */
    static final double FALL = 0.15;
    /** Intervals without climbing after a step that did not help, a fall or a throttle. */
    static final int HOLD_INTERVALS = 8;

    @Override
    public Tuner start(int initial, int cap) {
        return new Climb(Math.max(1, Math.min(initial, cap)), Math.max(1, cap));
    }

    @Override
    public String toString() {
        return "adaptive";
    }

    /** One fetch's state. */
    static final class Climb implements Tuner {
        private final int cap;
        private int count;
        /** The count before the last step, and the rate measured at it; -1 when there is none to compare. */
        private int previous = -1;
        private double previousRate;
        private boolean slowStart = true;
        private int hold;

        Climb(int initial, int cap) {
            this.count = initial;
            this.cap = cap;
        }

        @Override
        public int measured(double rate) {
            if (hold > 0) {
                hold--;
                if (hold == 0) {
                    previous = -1;
                }
                return count;
            }
            if (previous >= 0) {
                if (rate < previousRate * (1 - FALL)) {
                    // The step was too far: back, and from there one at a time (doubling again would only
                    // repeat the step that fell).
                    count = previous;
                    slowStart = false;
                    return holdAt(count);
                }
                if (rate < previousRate * (1 + RISE)) {
                    slowStart = false;
                    return holdAt(count);
                }
            }
            if (count >= cap) {
                return holdAt(count);
            }
            previous = count;
            previousRate = rate;
            count = Math.min(cap, slowStart ? count * 2 : count + 1);
            return count;
        }

        @Override
        public int throttled() {
            count = Math.max(1, count / 2);
            slowStart = false;
            return holdAt(count);
        }

        private int holdAt(int n) {
            hold = HOLD_INTERVALS;
            previous = -1;
            return n;
        }
    }
}
