package io.s3broadcast.spi;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A node's part of a cluster broadcast under way. */
public interface ClusterRun {

    /**
     * Completes when every piece is in the store (each checked against its CRC32C), with this node's
     * numbers; or exceptionally. Cancelling it stops the run: before the node is complete, gracefully (it hands its
     * unfinished works to its peers and says goodbye first; {@link #finished()} completes after that, within seconds).
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

    /**
     * Reads every piece this node took from peers again from S3, after the whole object failed its check
     * against S3's digest: peers that vouched for wrong pieces are banned and the bytes replaced in the store.
     * Never fails for a lie found; fails only when S3 cannot be read or the store written.
     */
    default CompletableFuture<Repair> repair() {
        return CompletableFuture.completedFuture(Repair.NONE);
    }

    /**
     * After the whole object failed its check against S3's digest, looks for the guilty peer before reading
     * everything again: one whole piece per vouching peer, picked at random among those taken on its word, is
     * read again from S3; a peer caught is banned and every piece taken on its word read again and replaced.
     * Reports what the run's checks found so far.
     */
    default CompletableFuture<Repair> checkOnePiecePerPeer() {
        return CompletableFuture.completedFuture(Repair.NONE);
    }

    /**
     * For an object without a digest S3 vouches for: reads a random sample of the pieces taken from peers
     * again from S3 (one per vouching peer, then up to this node's share of {@code budgetBytes}, the extra S3
     * bytes the whole cluster may read), bans any peer caught, and reads every piece taken on its word again.
     * With a budget of 0 it checks nothing and reports what the run's checks found so far.
     */
    default CompletableFuture<Repair> spotCheck(long budgetBytes) {
        return CompletableFuture.completedFuture(Repair.NONE);
    }

    /**
     * What checks against S3 found, over the whole run.
     *
     * @param piecesChecked pieces read again from S3 to check them (disputes, spot checks, repairs)
     * @param piecesRepaired pieces whose bytes were wrong and were replaced with S3's
     * @param bannedPeers peers banned for a wrong piece or digest, by node id
     */
    record Repair(int piecesChecked, int piecesRepaired, List<String> bannedPeers) {
        public static final Repair NONE = new Repair(0, 0, List.of());

        public Repair {
            bannedPeers = List.copyOf(bannedPeers);
        }
    }
}
