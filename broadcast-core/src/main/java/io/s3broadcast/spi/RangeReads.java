package io.s3broadcast.spi;

import java.util.Objects;

/**
 * How one fetch reads its pieces from the source: how many ranged GETs at once, and at most how many bytes
 * each (rounded down to whole pieces, at least one). Chosen per fetch by the work-sizing policy, so a
 * small share is not one request and a large object is not thousands.
 *
 * @param connections ranged GETs in flight at once to begin with, at most the source's configured connections
 * @param rangeBytes bytes per ranged GET at most
 * @param maxConnections the most GETs the tuning may keep in flight (the node's share of the fleet's budget)
 * @param tuning how the count changes while the fetch runs
 * @param hedge whether a connection with nothing left to start takes over the tail of a range in flight that
 *     reads much slower than a new request would ({@code Fetch} in the S3 source)
 */
public record RangeReads(int connections, long rangeBytes, int maxConnections, ConnectionTuning tuning, boolean hedge) {

    public RangeReads {
        if (connections <= 0) {
            throw new IllegalArgumentException("connections must be > 0, was " + connections);
        }
        if (rangeBytes <= 0) {
            throw new IllegalArgumentException("rangeBytes must be > 0, was " + rangeBytes);
        }
        if (maxConnections < connections) {
            throw new IllegalArgumentException("maxConnections must be >= connections (" + connections + "), was "
                    + maxConnections);
        }
        Objects.requireNonNull(tuning, "tuning");
    }

    /** {@code connections} GETs throughout, no hedging. */
    public RangeReads(int connections, long rangeBytes) {
        this(connections, rangeBytes, connections, ConnectionTuning.fixed(), false);
    }
}
