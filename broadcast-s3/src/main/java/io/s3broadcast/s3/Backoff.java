package io.s3broadcast.s3;

import java.time.Duration;

/**
 * Exponential backoff with full jitter: before retry {@code n} (1 for the first) wait a uniformly random
 * time in [0, min(max, initial * 2^(n-1))]. Full jitter spreads the retries of many connections (and of
 * many nodes hitting the same prefix) instead of having them return to S3 in step.
 */
final class Backoff {

    private final long initialNanos;
    private final long maxNanos;

    Backoff(Duration initial, Duration max) {
        if (initial.isNegative() || max.isNegative()) {
            throw new IllegalArgumentException("backoff must be >= 0, was initial " + initial + ", max " + max);
        }
        this.initialNanos = saturatedNanos(initial);
        this.maxNanos = saturatedNanos(max);
    }

    /** The upper bound of the wait before retry {@code retry} (1 for the first), before jitter. */
    long ceilingNanos(int retry) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry must be >= 1, was " + retry);
        }
        int shift = retry - 1;
        long ceiling;
        if (initialNanos == 0) {
            ceiling = 0;
        } else if (shift >= Long.numberOfLeadingZeros(initialNanos) - 1) {
            ceiling = Long.MAX_VALUE; // initial * 2^shift would overflow
        } else {
            ceiling = initialNanos << shift;
        }
        return Math.min(ceiling, maxNanos);
    }

    /**
     * The wait before retry {@code retry}, given {@code uniform}, a random number in [0, 1).
     */
    long delayNanos(int retry, double uniform) {
        if (!(uniform >= 0 && uniform < 1)) {
            throw new IllegalArgumentException("uniform must be in [0, 1), was " + uniform);
        }
        long ceiling = ceilingNanos(retry);
        return Math.min(ceiling, (long) (uniform * (ceiling + 1.0)));
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
