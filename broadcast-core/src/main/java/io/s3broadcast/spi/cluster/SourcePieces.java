package io.s3broadcast.spi.cluster;

/**
 * What this node's own S3 fetch is doing with a piece, as phase 2 needs to know it: a piece the S3 fetch
 * will fetch or is fetching is not also requested from a peer, outside endgame. {@link WorkList} is the
 * implementation; {@link #NONE} serves a node that reads nothing from S3 (phase 2 only). Implementations
 * are thread-safe.
 */
public interface SourcePieces {

    /** A node that fetches nothing from S3. */
    SourcePieces NONE = new SourcePieces() {
        @Override
        public boolean isPending(int piece) {
            return false;
        }

        @Override
        public boolean isInFlight(int piece) {
            return false;
        }
    };

    /** The S3 fetch will fetch or is fetching {@code piece}: it is queued or in flight, and not stored yet. */
    boolean isPending(int piece);

    /** The S3 fetch has taken {@code piece} and has not stored it yet. */
    boolean isInFlight(int piece);
}
