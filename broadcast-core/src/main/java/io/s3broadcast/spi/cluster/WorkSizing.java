package io.s3broadcast.spi.cluster;

import io.s3broadcast.spi.ConnectionTuning;
import io.s3broadcast.spi.RangeReads;
import java.util.Objects;

/**
 * The work-sizing policy: how a node reads the pieces it is to fetch from S3, given how big its share is,
 * how many nodes share the object and how many connections it may open. It says how many ranged GETs run at
 * once, how long each is, and how many pieces make a <em>work</em> (the unit a slower node gives away when
 * asked). The flat tree asks with one node; a cluster node asks with its share once the membership is fixed.
 *
 * <p>{@link #computed(int)} is the default ({@link ComputedWorkSizing}); {@link #withOverrides} lets an
 * explicitly configured range or work size win over it.
 */
public interface WorkSizing {

    /** The reads and works for one share. */
    Sizing size(Share share);

    /**
     * What the policy sizes for.
     *
     * @param sharePieces pieces this node is to read (the whole object for the flat tree)
     * @param pieceSize bytes per piece
     * @param nodes nodes sharing the object (1 for the flat tree)
     * @param bytesPerSecondPerConnection measured rate of one S3 connection, or 0 when not known yet
     */
    record Share(int sharePieces, int pieceSize, int nodes, double bytesPerSecondPerConnection) {

        public Share {
            if (sharePieces < 0 || pieceSize <= 0 || nodes <= 0 || !(bytesPerSecondPerConnection >= 0)) {
                throw new IllegalArgumentException("sharePieces >= 0, pieceSize > 0, nodes > 0 and a rate >= 0 needed: "
                        + sharePieces + ", " + pieceSize + ", " + nodes + ", " + bytesPerSecondPerConnection);
            }
        }

        /** A share of unknown rate. */
        public static Share of(int sharePieces, int pieceSize, int nodes) {
            return new Share(sharePieces, pieceSize, nodes, 0);
        }

        /** Bytes in the share (the last piece counted whole). */
        public long bytes() {
            return (long) sharePieces * pieceSize;
        }
    }

    /**
     * A decision.
     *
     * @param connections ranged GETs at once
     * @param rangePieces pieces per ranged GET at most
     * @param workPieces pieces per work
     * @param pieceSize bytes per piece (to express the range in bytes)
     * @param maxConnections ranged GETs the run-time tuning may go up to ({@code >= connections})
     * @param tuning how the count of GETs changes while the fetch runs
     * @param hedge whether idle connections take over the tail of a much slower range in flight
     */
    record Sizing(int connections, int rangePieces, int workPieces, int pieceSize, int maxConnections,
            ConnectionTuning tuning, boolean hedge) {

        public Sizing {
            if (connections <= 0 || rangePieces <= 0 || workPieces <= 0 || pieceSize <= 0) {
                throw new IllegalArgumentException("connections, rangePieces, workPieces and pieceSize must be > 0: "
                        + connections + ", " + rangePieces + ", " + workPieces + ", " + pieceSize);
            }
            if (maxConnections < connections) {
                throw new IllegalArgumentException("maxConnections must be >= connections (" + connections + "), was "
                        + maxConnections);
            }
            Objects.requireNonNull(tuning, "tuning");
        }

        /** A fixed count of {@code connections}, no hedging. */
        public Sizing(int connections, int rangePieces, int workPieces, int pieceSize) {
            this(connections, rangePieces, workPieces, pieceSize, connections, ConnectionTuning.fixed(), false);
        }

        /** Bytes per ranged GET. */
        public long rangeBytes() {
            return (long) rangePieces * pieceSize;
        }

        /** What the source is told. */
        public RangeReads reads() {
            return new RangeReads(connections, rangeBytes(), maxConnections, tuning, hedge);
        }
    }

    /** The computed sizing over at most {@code maxConnections} connections, fixed and unhedged. */
    static WorkSizing computed(int maxConnections) {
        return new ComputedWorkSizing(maxConnections, ConnectionTuning.fixed(), false);
    }

    /**
     * The default policy over at most {@code maxConnections} connections, tuned at run time by {@code tuning}
     * within the node's share of the fleet's budget, hedging when {@code hedge}; see {@link ComputedWorkSizing}.
     */
    static WorkSizing computed(int maxConnections, ConnectionTuning tuning, boolean hedge) {
        return new ComputedWorkSizing(maxConnections, tuning, hedge);
    }

    /**
     * {@code base}, except that an explicit range size (bytes, null for none) and work size (pieces, null for
     * none) win. With an explicit range and no explicit work size a work is one range; with an explicit range
     * every configured connection is used, as configured.
     */
    static WorkSizing withOverrides(WorkSizing base, int maxConnections, Long rangeBytes, Integer workPieces) {
        if (rangeBytes == null && workPieces == null) {
            return base;
        }
        if (rangeBytes != null && rangeBytes <= 0 || workPieces != null && workPieces <= 0) {
            throw new IllegalArgumentException("rangeBytes and workPieces must be > 0: " + rangeBytes + ", " + workPieces);
        }
        return share -> {
            Sizing s = base.size(share);
            int range = rangeBytes == null ? s.rangePieces()
                    : (int) Math.max(1, Math.min(Integer.MAX_VALUE, rangeBytes / share.pieceSize()));
            int work = workPieces != null ? workPieces : rangeBytes != null ? range : s.workPieces();
            int connections = rangeBytes == null ? s.connections() : maxConnections;
            return new Sizing(connections, range, work, share.pieceSize(), Math.max(connections, Math.min(s.maxConnections(), maxConnections)),
                    s.tuning(), s.hedge());
        };
    }
}
