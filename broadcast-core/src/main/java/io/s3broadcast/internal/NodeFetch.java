package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ClusterStrategy;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.ClusterTask;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.ReadOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's fetch: HEAD, check the destination, fill a temporary file with every piece (from S3 alone for
 * the flat tree, from S3 and peers for the cluster strategies) while its end-to-end check is computed as the
 * pieces land, then fsync and rename it into place. The temporary file is named for the object and journaled
 * ({@link ResumableStore}), so a fetch after a crash resumes from the pieces stored; a cancellation, or a
 * failure after which they are of no use, removes it, other failures keep it for the next fetch. Nothing
 * partial is ever at the destination; the future always completes.
 */
final class NodeFetch implements FetchHandle {

    private static final Logger LOG = LoggerFactory.getLogger(NodeFetch.class);

    private final FetchRequest request;
    private final Settings settings;
    private final ObjectSource source;
    private final Executor executor;
    private final ProgressTracker tracker;
    private final AfterLastPieceTimer timer;
    private final CompletableFuture<CompletedFetch> result = new CompletableFuture<>();
    /** Set by whoever tells the listeners how the fetch ended: they hear it once, before the result completes. */
    private final AtomicBoolean told = new AtomicBoolean();
    private final Strategy strategy;
    /** Runs the cluster strategies: being made while the HEAD is out; null when none is on the classpath. */
    private final CompletableFuture<ClusterStrategy> clusterStarting;
    /** {@link #clusterStarting}'s strategy, once it and the HEAD are in (a cluster fetch only). */
    private ClusterStrategy cluster;
    private volatile CompletableFuture<?> inFlight;
    private volatile FetchFile file;
    private volatile ClusterRun clusterRun;

    /**
     * @param cluster runs the cluster strategies, being made (the fetch waits for it after its HEAD); null when none
     *     is on the classpath
     */
    NodeFetch(FetchRequest request, Settings settings, ObjectSource source, CompletableFuture<ClusterStrategy> cluster,
            Executor executor, ProgressTracker tracker) {
        this.request = request;
        this.settings = settings;
        this.source = source;
        this.clusterStarting = cluster;
        this.executor = executor;
        this.tracker = tracker;
        this.timer = new AfterLastPieceTimer(tracker);
        this.strategy = request.strategy().orElse(settings.strategy());
        // A caller's own cancellation: cleaned up and told in the caller's thread, just after it.
        result.whenComplete((r, e) -> {
            if (e != null) {
                cleanUp(e);
                if (told.compareAndSet(false, true)) {
                    tracker.failed(e);
                }
            }
        });
    }

    @Override
    public CompletableFuture<CompletedFetch> completionFuture() {
        return result;
    }

    @Override
    public FetchProgress progress() {
        return tracker.snapshot();
    }

    void start() {
        Path destination;
        try {
            destination = Destinations.resolve(request, settings.destinationDirectory());
            if (strategy.isCluster() && clusterStarting == null) {
                throw new BroadcastException("strategy " + strategy + " needs the io.s3broadcast:broadcast-p2p"
                        + " dependency on the classpath (or use FLAT_TREE)");
            }
            if (strategy.isCluster() && settings.cluster().registry() == null) {
                throw new BroadcastException("strategy " + strategy + " needs a node registry: set"
                        + " Broadcast.builder().registry(spec) or s3broadcast.registry, e.g. static:host:port,host:port,"
                        + " s3://bucket/prefix or zk://host:port/path");
            }
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        // A cluster fetch binds what peers sent to the ETag too, which for a multipart upload needs its part sizes.
        CompletableFuture<ObjectInfo> head = source.head(request.bucket(), request.key(), strategy.isCluster(),
                readOptions(request));
        inFlight = head;
        CompletableFuture<ObjectInfo> ready = !strategy.isCluster() ? head
                : head.thenCombine(clusterStarting, (info, made) -> {
                    cluster = made;
                    return info;
                });
        ready.thenComposeAsync(info -> {
                    // On a cluster every node joins the broadcast, so none waits out expectTimeout for one that
                    // skipped: the record is only used by the flat tree.
                    if (!request.force() && !strategy.isCluster() && FetchRecord.matches(destination, info)) {
                        return CompletableFuture.completedFuture(unchanged(destination, info));
                    }
                    FetchRecord.forget(destination);
                    return CompletableFuture.completedFuture(prepare(info, destination))
                            .thenCompose(this::fill)
                            .thenCompose(this::checkAgainstS3)
                            .thenCompose(filled -> file.verified()
                                    .thenApplyAsync(checked -> {
                                        timer.hashed();
                                        return commit(filled, checked);
                                    }, executor));
                }, executor)
                .whenComplete((done, error) -> {
                    if (error != null) {
                        fail(error);
                    } else {
                        // Listeners (metrics, a batch) first: a caller returning from join() has seen them told.
                        if (!result.isDone() && told.compareAndSet(false, true)) {
                            tracker.completed(done);
                        }
                        result.complete(done);
                    }
                });
    }

    private static ReadOptions readOptions(FetchRequest r) {
        return new ReadOptions(r.versionId(), r.expectedBucketOwner(), r.requesterPays(), r.sseCustomerKey());
    }

    /** The destination already holds this object (its record matches the HEAD): nothing is read. */
    private CompletedFetch unchanged(Path destination, ObjectInfo info) {
        tracker.unchanged(info.size());
        return result(destination, info, tracker.elapsed()).unchanged(true).build();
    }

    /** What every result says about the object and where it is. */
    private CompletedFetch.Builder result(Path path, ObjectInfo info, Duration took) {
        return CompletedFetch.builder().path(path).bucket(info.bucket()).key(info.key()).eTag(info.eTag())
                .size(info.size()).strategy(strategy).duration(took).versionId(info.versionId())
                .contentType(info.metadata().contentType()).lastModified(info.metadata().lastModified())
                .userMetadata(info.metadata().userMetadata());
    }

    /**
     * Fails the fetch. What it wrote is cleaned up and the listeners are told first, so a caller that sees the
     * failure finds nothing left behind that is not meant to stay (a caller's own cancellation is cleaned up just
     * after it).
     */
    void fail(Throwable error) {
        Throwable cause = unwrap(error);
        try {
            if (!result.isDone()) {
                cleanUp(cause);
                if (told.compareAndSet(false, true)) {
                    tracker.failed(cause);
                }
            }
        } finally {
            result.completeExceptionally(cause); // a future always completes, even if cleaning up threw
        }
    }

    private ObjectInfo prepare(ObjectInfo info, Path destination) {
        Destinations.check(destination, info.size(), ObjectVerification.name(info));
        PieceLayout layout = new PieceLayout(info.size(), settings.pieceSize(info.size(), strategy));
        file = FetchFile.open(destination, info, layout, strategy.isCluster(), executor);
        if (result.isDone()) {
            cleanUp(new CancellationException());
            throw new CancellationException();
        }
        tracker.initiated(layout);
        Bitfield resumed = file.store().bitfield();
        for (int p = resumed.nextSet(0); p >= 0; p = resumed.nextSet(p + 1)) {
            tracker.pieceStored(p); // resumed: counted as done, not as read
        }
        return info;
    }

    /** Puts every piece in the store: from S3 alone, or through the cluster strategy. */
    private CompletableFuture<Filled> fill(ObjectInfo info) {
        return fillStore(info).thenApply(f -> {
            timer.lastPiece();
            if (LOG.isDebugEnabled()) {
                LOG.debug("s3://{}/{}: last piece in; {} bytes left to hash", info.bucket(), info.key(),
                        file.bytesLeftToHash());
            }
            return f;
        });
    }

    private CompletableFuture<Filled> fillStore(ObjectInfo info) {
        CompletableFuture<Filled> filled;
        PieceStore store = file.store();
        if (strategy.isCluster()) {
            ClusterRun run = cluster.start(new ClusterTask(strategy, info, store, source, tracker, settings.sizing(),
                    CHECK_AS_PIECES_ARRIVE ? spotCheckBudget(info) : 0));
            clusterRun = run;
            filled = run.completion().thenApply(outcome -> new Filled(info, outcome));
            inFlight = run.completion();
        } else {
            CompletableFuture<Void> fetch = new FlatTreeFill(store, settings.sizing()).start(info, source, tracker);
            inFlight = fetch;
            filled = fetch.thenApply(v -> new Filled(info, null));
        }
        if (result.isDone()) {
            inFlight.cancel(true);
        }
        return filled;
    }

    /**
     * For a cluster fetch, binds the pieces taken from peers to S3 end to end: the file, hashed as its pieces
     * landed, against the object's MD5 or S3 checksum. On a mismatch the guilty peer is looked for first: one
     * piece per vouching peer is read again from S3 (a peer caught is banned and every piece taken on its word read again),
     * and the file checked again; only if that does not mend it does the run read every piece taken from peers
     * again from S3, ban the peers that vouched for wrong ones and replace their bytes. An object without a
     * digest a peer cannot forge gets a spot check of peer pieces against S3 first, within
     * {@link #SPOT_CHECK_SHARE} of its size. The flat tree reads everything from S3 and needs none of this.
     */
    private CompletableFuture<Filled> checkAgainstS3(Filled filled) {
        ClusterRun run = clusterRun;
        if (run == null) {
            return CompletableFuture.completedFuture(filled);
        }
        ObjectInfo info = filled.info();
        return run.spotCheck(spotCheckBudget(info))
                .thenCompose(r -> {
                    timer.spotChecked();
                    return check(filled.with(r));
                })
                .thenCompose(c -> {
                    if (c.result().wholeObjectMismatch() == null) {
                        return CompletableFuture.completedFuture(c.filled());
                    }
                    LOG.warn("{}; reading one piece per vouching peer again from S3 to find the guilty peer first",
                            c.result().wholeObjectMismatch());
                    int bannedBefore = c.filled().repair().bannedPeers().size();
                    return run.checkOnePiecePerPeer()
                            .thenCompose(r -> r.bannedPeers().size() > bannedBefore ? check(c.filled().with(r))
                                    : CompletableFuture.<Checked>completedFuture(null))
                            .thenCompose(narrow -> {
                                if (narrow != null && narrow.result().wholeObjectMismatch() == null) {
                                    ClusterRun.Repair r = narrow.filled().repair();
                                    LOG.warn("s3://{}/{}: mended by banning {} and reading the pieces taken on their word"
                                            + " again ({} pieces read again from S3, {} replaced)", info.bucket(), info.key(),
                                            r.bannedPeers(), r.piecesChecked(), r.piecesRepaired());
                                    return CompletableFuture.completedFuture(narrow.filled());
                                }
                                LOG.warn("s3://{}/{}: {}; reading every piece taken from peers again from S3 to find and"
                                        + " replace the wrong ones", info.bucket(), info.key(), narrow == null
                                        ? "no peer was caught in a sample of one piece each" : "still wrong after the bans");
                                return run.repair().thenApply(r -> {
                                    LOG.warn("s3://{}/{}: {} pieces read again from S3, {} replaced, peers banned for wrong"
                                            + " pieces: {}", info.bucket(), info.key(), r.piecesChecked(), r.piecesRepaired(),
                                            r.bannedPeers());
                                    return c.filled().with(r);
                                });
                            });
                });
    }

    /**
     * The file against the object's digest, once what is left of it is hashed (after a repair, the pieces
     * replaced and what follows them in their segments).
     */
    private CompletableFuture<Checked> check(Filled filled) {
        return file.verified().thenApply(r -> new Checked(filled, r));
    }

    private record Checked(Filled filled, ObjectVerifier.Result result) {
    }

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

    /** The cluster's spot-check budget for {@code info}: none when it has a digest S3 vouches for. */
    private static long spotCheckBudget(ObjectInfo info) {
        return ObjectVerifier.hasUnforgeableDigest(info) ? 0 : (long) (info.size() * SPOT_CHECK_SHARE);
    }

    /** Publishes the file if the end-to-end check passed: fsync, atomic rename, fsync of the directory. */
    private CompletedFetch commit(Filled filled, ObjectVerifier.Result verified) {
        ObjectInfo info = filled.info();
        FetchFile f = file;
        try {
            boolean checked = filled.checked(verified);
            if (result.isDone()) {
                throw new CancellationException();
            }
            Path path = f.publish();
            f.closeAfter(clusterRun);
            Duration took = tracker.elapsed();
            CompletedFetch.AfterLastPiece after = timer.until(took);
            LOG.info("s3://{}/{}: after the last piece, {} ms: spot check {} ms, end-to-end check {} ms, fsync and rename"
                    + " {} ms", info.bucket(), info.key(), after.total().toMillis(), after.spotCheck().toMillis(),
                    after.hashing().toMillis(), after.commit().toMillis());
            return filled.describe(result(path, info, took).bytesFromS3(tracker.bytesFromSource())
                    .hedges(tracker.hedges()).checksumVerified(checked).afterLastPiece(after)
                    .checksumAlgorithm(checked ? info.checksum().or(info::eTagDigest).map(ObjectChecksum::algorithm)
                            : Optional.empty())).build();
        } catch (IOException e) {
            throw new BroadcastException("cannot write s3://" + info.bucket() + "/" + info.key() + " to "
                    + f.store().destination() + ": " + e, e);
        }
    }

    /** Lingering run, if any, for {@code Broadcast.close()} to wait on. */
    CompletableFuture<Void> finished() {
        ClusterRun run = clusterRun;
        return run == null ? CompletableFuture.completedFuture(null) : run.finished();
    }

    private void cleanUp(Throwable error) {
        CompletableFuture<?> f = inFlight;
        if (f != null) {
            f.cancel(true);
        }
        FetchFile stopping = file;
        if (stopping != null) {
            stopping.stop(unwrap(error));
            stopping.closeAfter(clusterRun);
        }
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
