package io.s3broadcast.spi;

/**
 * How one fetch reads its pieces from the source: how many ranged GETs at once, and at most how many bytes
 * each (rounded down to whole pieces, at least one). Chosen per fetch by the work-sizing policy, so a
 * small share is not one request and a large object is not thousands.
 *
 * @param connections ranged GETs in flight at once, at most the source's configured connections
 * @param rangeBytes bytes per ranged GET at most
 */
public record RangeReads(int connections, long rangeBytes) {

    public RangeReads {
        if (connections <= 0) {
            throw new IllegalArgumentException("connections must be > 0, was " + connections);
        }
        if (rangeBytes <= 0) {
            throw new IllegalArgumentException("rangeBytes must be > 0, was " + rangeBytes);
        }
    }
}
