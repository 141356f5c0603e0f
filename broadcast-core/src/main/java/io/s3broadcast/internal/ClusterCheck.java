package io.s3broadcast.internal;

import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ObjectInfo;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster fetch's end-to-end check against S3 once its last piece is in: binds the pieces taken from peers to
 * S3, the file (hashed as its pieces landed) against the object's MD5 or S3 checksum. On a mismatch the guilty
 * peer is looked for first: one piece per vouching peer is read again from S3 (a peer caught is banned and every
 * piece taken on its word read again), and the file checked again; only if that does not mend it does the run
 * read every piece taken from peers again from S3, ban the peers that vouched for wrong ones and replace their
 * bytes. An object without a digest a peer cannot forge gets a spot check of peer pieces against S3 first, within
 * {@link #SPOT_CHECK_SHARE} of its size. The flat tree reads everything from S3 and needs none of this.
 *
 * <p>Each step runs on the thread that completes the one before (the run's, or the executor's hashing).
 */
final class ClusterCheck {

    /** Logged as NodeFetch, with the rest of a fetch's lines: log configurations name that class. */
    private static final Logger LOG = LoggerFactory.getLogger(NodeFetch.class);

    /**
     * Share of the object's size the cluster may read again from S3 to spot-check peers' pieces (1.02x in
     * all); each node takes its part, and at least one piece per peer that vouched for pieces it took.
     */
    static final double SPOT_CHECK_SHARE = 0.02;

    /**
     * Whether the run gets the spot-check budget to check pieces as they arrive (the p2p engine's
     * {@code ArrivalChecks}); without it the whole spot check runs after the last piece. Off: catching a lying
     * member mid-run let an honest node be banned for relaying the liar's pieces before it had caught the liar
     * itself (ClusterIntegrityIT, once in two CI runs), which the end-of-run check does not do.
     */
    static final boolean CHECK_AS_PIECES_ARRIVE = false;

    private final ClusterRun run;
    private final FetchFile file;
    private final AfterLastPieceTimer timer;

    ClusterCheck(ClusterRun run, FetchFile file, AfterLastPieceTimer timer) {
        this.run = run;
        this.file = file;
        this.timer = timer;
    }

    /** The spot-check budget a run starting on {@code info} may spend as pieces arrive. */
    static long budgetAsPiecesArrive(ObjectInfo info) {
        return CHECK_AS_PIECES_ARRIVE ? spotCheckBudget(info) : 0;
    }

    /** The cluster's spot-check budget for {@code info}: none when it has a digest S3 vouches for. */
    static long spotCheckBudget(ObjectInfo info) {
        return ObjectVerifier.hasUnforgeableDigest(info) ? 0 : (long) (info.size() * SPOT_CHECK_SHARE);
    }

    /** {@code filled} once its file is the object or every piece taken from peers was read again from S3. */
    CompletableFuture<Filled> check(Filled filled) {
        ObjectInfo info = filled.info();
        return run.spotCheck(spotCheckBudget(info))
                .thenCompose(r -> {
                    timer.spotChecked();
                    return verify(filled.with(r));
                })
                .thenCompose(c -> {
                    if (c.result().wholeObjectMismatch() == null) {
                        return CompletableFuture.completedFuture(c.filled());
                    }
                    LOG.warn("{}; reading one piece per vouching peer again from S3 to find the guilty peer first",
                            c.result().wholeObjectMismatch());
                    int bannedBefore = c.filled().repair().bannedPeers().size();
                    return run.checkOnePiecePerPeer()
                            .thenCompose(r -> r.bannedPeers().size() > bannedBefore ? verify(c.filled().with(r))
                                    : CompletableFuture.<Checked>completedFuture(null))
                            .thenCompose(narrow -> {
                                if (narrow != null && narrow.result().wholeObjectMismatch() == null) {
                                    ClusterRun.Repair r = narrow.filled().repair();
                                    LOG.warn("s3://{}/{}: mended by banning {} and reading the pieces taken on their"
                                            + " word again ({} pieces read again from S3, {} replaced)", info.bucket(),
                                            info.key(), r.bannedPeers(), r.piecesChecked(), r.piecesRepaired());
                                    return CompletableFuture.completedFuture(narrow.filled());
                                }
                                LOG.warn("s3://{}/{}: {}; reading every piece taken from peers again from S3 to find"
                                        + " and replace the wrong ones", info.bucket(), info.key(),
                                        narrow == null ? "no peer was caught in a sample of one piece each"
                                                : "still wrong after the bans");
                                return run.repair().thenApply(r -> {
                                    LOG.warn("s3://{}/{}: {} pieces read again from S3, {} replaced, peers banned for"
                                            + " wrong pieces: {}", info.bucket(), info.key(), r.piecesChecked(),
                                            r.piecesRepaired(), r.bannedPeers());
                                    return c.filled().with(r);
                                });
                            });
                });
    }

    /**
     * The file against the object's digest, once what is left of it is hashed (after a repair, the pieces
     * replaced and what follows them in their segments).
     */
    private CompletableFuture<Checked> verify(Filled filled) {
        return file.verified().thenApply(r -> new Checked(filled, r));
    }

    private record Checked(Filled filled, ObjectVerifier.Result result) {
    }
}
