package io.s3broadcast.spi.cluster;

/**
 * How phase 1 reads this node's share from S3.
 *
 * @param steal {@code true} for the steal algorithm (an idle node takes works from the node with most
 *     left), {@code false} for non-steal (each node reads exactly its share, then waits for the others)
 * @param pieceSize bytes per piece, the unit of checksums and of peer exchange
 * @param workSize pieces per work, the unit of stealing; a share is cut into works of this many pieces
 *     (its last work may be shorter)
 * @param connections concurrent S3 connections per node
 */
public record PhaseOneSettings(boolean steal, int pieceSize, int workSize, int connections) {

    /** The paper's piece size: 32 KB. */
    public static final int PAPER_PIECE_SIZE = 32 * 1024;
    /** The paper's work size: 100 pieces. */
    public static final int PAPER_WORK_SIZE = 100;
    /** The paper's S3 connections per node: one. */
    public static final int PAPER_CONNECTIONS = 1;

    /** Default work size with the default 1 MiB pieces: 16 pieces, two default ranged GETs. */
    public static final int DEFAULT_WORK_SIZE = 16;

    public PhaseOneSettings {
        if (pieceSize <= 0) {
            throw new IllegalArgumentException("pieceSize must be > 0, was " + pieceSize);
        }
        if (workSize <= 0) {
            throw new IllegalArgumentException("workSize must be > 0 pieces, was " + workSize);
        }
        if (connections <= 0) {
            throw new IllegalArgumentException("connections must be > 0, was " + connections);
        }
    }

    /** The setup measured in the paper: 32 KB pieces, works of 100 pieces, one S3 connection per node. */
    public static PhaseOneSettings paper(boolean steal) {
        return new PhaseOneSettings(steal, PAPER_PIECE_SIZE, PAPER_WORK_SIZE, PAPER_CONNECTIONS);
    }

    /** Bytes in one full work. */
    public long workBytes() {
        return (long) pieceSize * workSize;
    }
}
