package io.s3broadcast.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A node's part of a cluster broadcast under way. */
public interface ClusterRun {

    /**
     * Completes when every piece is in the store (each checked against its CRC32C), with this node's
     * numbers; or exceptionally. Cancelling it stops the run.
     */
    CompletableFuture<Outcome> completion();

    /**
     * Completes when the node no longer touches the store: after it lingered to serve peers that were not
     * done (ended early once every known peer is done), or after a failure or cancellation. Never fails.
     */
    CompletableFuture<Void> finished();

    /**
     * @param bytesFromPeers piece bytes received from peers and kept
     * @param phase1 time from the start of the run to the end of this node's S3 fetching
     * @param phase2 time from then to the last piece
     * @param piecesStolen pieces fetched from S3 in works taken from other nodes
     * @param peers peers this node exchanged with
     */
    record Outcome(long bytesFromPeers, Duration phase1, Duration phase2, int piecesStolen, int peers) {
    }
}
