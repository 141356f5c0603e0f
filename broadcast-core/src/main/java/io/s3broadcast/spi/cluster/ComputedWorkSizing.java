package io.s3broadcast.spi.cluster;

import io.s3broadcast.spi.ConnectionTuning;

/**
 * The default {@link WorkSizing}: a share becomes many small units that stay stealable until late, while a
 * large object stays a bounded number of requests.
 *
 * <ul>
 * <li><b>Range.</b> {@code ceil(share / (connections x UNITS_PER_CONNECTION))} pieces, so that every
 *     connection reads several ranges of the share (a slow draw of the per-request rate then holds one
 *     small range, not a quarter of the object); at least {@link #MIN_RANGE_BYTES} (so the first-byte latency
 *     stays small against the transfer) and at least {@code share / MAX_RANGES} (a 10 GiB object is not ten
 *     thousand GETs); at most {@link #MAX_RANGE_BYTES}, or, once a per-connection rate is measured, what one
 *     connection reads in {@link #MAX_RANGE_SECONDS} if that is less (never below the minimum). A node alone
 *     (the flat tree) reads {@link #UNITS_ALONE} range per connection instead: it has nothing to give away.
 * <li><b>Connections.</b> As many as leave {@code UNITS_PER_CONNECTION} ranges to each, between
 *     {@link #MIN_CONNECTIONS} and the configured maximum (never more than there are ranges): a single node
 *     reading a 64 MiB object uses all 16 (4 MiB each), a node of eight reading an 8 MiB share uses two and keeps six
 *     ranges to give away.
 * <li><b>Work.</b> One range: every range not started is a work a thief can take.
 * <li><b>Run-time cap.</b> The {@link ConnectionTuning} may raise the count while the fetch runs, up to the
 *     node's part of a fleet-wide budget of {@link #FLEET_CONNECTIONS} GETs ({@code FLEET_CONNECTIONS / nodes},
 *     at least the computed count, at most the configured maximum): a single node may go to 16, each of eight
 *     nodes to 8, each of sixteen to 4. A node of a cluster goes to half its share's ranges at most
 *     ({@link #RANGES_IN_FLIGHT_DIVISOR}), never below the computed count: on a link shared with peers the rate
 *     rises with every GET added, and the tuner put all eight ranges of a node of eight in flight within a
 *     second, so no work was left to steal and a slow node's last ranges decided phase 1 (docs/results.md,
 *     session 21: N = 8 at 5 MB/s, median 1.31 to 1.26 T*, the slowest of ten trials 1.50 to 1.35).
 * </ul>
 */
final class ComputedWorkSizing implements WorkSizing {

    /** Ranges each connection should read of its share, so the share's end is many small units. */
    static final int UNITS_PER_CONNECTION = 4;
    /**
     * Ranges per connection for a node alone (the flat tree): one, as it has nothing to give away, and each GET
     * costs CPU in a fresh JVM (64 MiB in 4 MiB ranges against aria2c measured 0.42-0.44 of its rate where 1 MiB
     * ranges reached 0.26-0.27, 1.0-1.2 CPU-s against 1.2-1.5).
     */
    static final int UNITS_ALONE = 1;
    /** Smallest range: 1 MiB, about 0.1-0.2 s at the rates S3 gives one request, against ~30 ms to first byte. */
    static final long MIN_RANGE_BYTES = 1L << 20;
    /** Largest range: 32 MiB (the former fixed default). */
    static final long MAX_RANGE_BYTES = 32L << 20;
    /** Ranges per share at most (before the largest range caps them): bounds the GETs of a huge object. */
    static final int MAX_RANGES = 1024;
    /** With a measured rate, a range takes at most this long on one connection. */
    static final double MAX_RANGE_SECONDS = 2.0;
    /** Fewest connections when the share has at least that many ranges: one slow draw does not idle the link. */
    static final int MIN_CONNECTIONS = 2;

    /** A node of a cluster tunes up to its share's ranges divided by this at most: the rest stay for thieves. */
    static final int RANGES_IN_FLIGHT_DIVISOR = 2;

    /** GETs in flight the whole fleet may tune up to, shared out evenly between the nodes. */
    static final int FLEET_CONNECTIONS = 64;

    private final int maxConnections;
    private final ConnectionTuning tuning;
    private final boolean hedge;

    ComputedWorkSizing(int maxConnections, ConnectionTuning tuning, boolean hedge) {
        if (maxConnections <= 0) {
            throw new IllegalArgumentException("maxConnections must be > 0, was " + maxConnections);
        }
        this.maxConnections = maxConnections;
        this.tuning = java.util.Objects.requireNonNull(tuning, "tuning");
        this.hedge = hedge;
    }

    @Override
    public Sizing size(Share share) {
        int pieces = share.sharePieces();
        int pieceSize = share.pieceSize();
        long minPieces = Math.max(1, Math.max(ceil(MIN_RANGE_BYTES, pieceSize), ceil(pieces, MAX_RANGES)));
        long maxPieces = Math.max(minPieces, MAX_RANGE_BYTES / pieceSize);
        if (share.bytesPerSecondPerConnection() > 0) {
            long byRate = (long) (share.bytesPerSecondPerConnection() * MAX_RANGE_SECONDS / pieceSize);
            maxPieces = Math.max(minPieces, Math.min(maxPieces, byRate));
        }
        int units = share.nodes() == 1 ? UNITS_ALONE : UNITS_PER_CONNECTION;
        long wanted = ceil(pieces, (long) maxConnections * units);
        int range = (int) Math.min(Integer.MAX_VALUE, Math.max(minPieces, Math.min(maxPieces, wanted)));
        long ranges = Math.max(1, ceil(pieces, range));
        long connections = Math.max(MIN_CONNECTIONS, ranges / units);
        connections = Math.max(1, Math.min(Math.min(connections, ranges), maxConnections));
        long cap = Math.max(connections, Math.min(maxConnections, FLEET_CONNECTIONS / share.nodes()));
        if (share.nodes() > 1) {
            cap = Math.max(connections, Math.min(cap, ranges / RANGES_IN_FLIGHT_DIVISOR));
        }
        return new Sizing((int) connections, range, range, pieceSize, (int) cap, tuning, hedge);
    }

    private static long ceil(long a, long b) {
        return (a + b - 1) / b;
    }

    @Override
    public String toString() {
        return "computed(maxConnections=" + maxConnections + ", tuning=" + tuning + ", hedge=" + hedge + ")";
    }
}
