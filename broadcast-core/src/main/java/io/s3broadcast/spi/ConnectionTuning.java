package io.s3broadcast.spi;

import java.time.Duration;

/**
 * How many ranged GETs one fetch keeps in flight while it runs. The source measures the fetch's aggregate
 * rate every {@link #interval()} and asks the fetch's {@link Tuner}; S3 asking to slow down (503 SlowDown)
 * is told at once. The count starts at what the work-sizing policy computed and stays within
 * {@code [1, cap]}, the cap coming from the node's configured connections and the fleet-wide budget.
 *
 * <p>{@link #hillClimbing()} is the default: it adds connections while the measured rate rises and backs off
 * when it falls or S3 throttles (parallel streams help until they congest, and the best count cannot be
 * predicted; it is tuned at run time). {@link #fixed()} keeps the computed count.
 */
public interface ConnectionTuning {

    /** A tuner for one fetch starting at {@code initial} connections, never above {@code cap}. */
    Tuner start(int initial, int cap);

    /** How often the fetch measures its rate and asks its tuner. */
    default Duration interval() {
        return HillClimbingTuning.INTERVAL;
    }

    /** The count for one fetch; called on one thread at a time. */
    interface Tuner {

        /** The fetch read {@code bytesPerSecond} over the last interval; returns the connections wanted now. */
        int measured(double bytesPerSecond);

        /** S3 answered 503 SlowDown; returns the connections wanted now. */
        int throttled();
    }

    /** Keeps the computed count. */
    static ConnectionTuning fixed() {
        return FixedTuning.INSTANCE;
    }

    /** Adds connections while the rate rises, backs off when it falls or S3 throttles; see {@link HillClimbingTuning}. */
    static ConnectionTuning hillClimbing() {
        return HillClimbingTuning.DEFAULT;
    }

    /** {@code fixed} or {@code adaptive} (case-insensitive), as the {@code connectionTuning} setting spells it. */
    static ConnectionTuning parse(String name) {
        return switch (name.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "fixed" -> fixed();
            case "adaptive" -> hillClimbing();
            default -> throw new IllegalArgumentException("unknown connectionTuning '" + name + "': use adaptive or fixed");
        };
    }

    /** The computed count, unchanged. */
    enum FixedTuning implements ConnectionTuning {
        INSTANCE;

        @Override
        public Tuner start(int initial, int cap) {
            int n = Math.max(1, Math.min(initial, cap));
            return new Tuner() {
                @Override
                public int measured(double bytesPerSecond) {
                    return n;
                }

                @Override
                public int throttled() {
                    return n;
                }
            };
        }

        @Override
        public String toString() {
            return "fixed";
        }
    }
}
