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
import java.util.Locale;
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
 *
 * <p>It runs the steps in order and owns the handle: its future, its listeners, its cancellation. The file and its
 * check are a {@link FetchFile}, the flat tree's plan a {@link FlatTreeFill}, a cluster fetch's check against S3 a
 * {@link ClusterCheck}. Steps run on the broadcast's executor and on the threads that complete the HEAD, the S3
 * reads and the cluster run; a caller's cancellation cleans up in the caller's thread.
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
    /** Bytes the end-to-end check had still to hash when the last piece was in. */
    private volatile long leftToHash;

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
        CompletableFuture<Filled> filled;
        PieceStore store = file.store();
        if (strategy.isCluster()) {
            ClusterRun run = cluster.start(new ClusterTask(strategy, info, store, source, tracker, settings.sizing(),
                    ClusterCheck.budgetAsPiecesArrive(info)));
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
        return filled.thenApply(f -> {
            leftToHash = file.bytesLeftToHash();
            timer.lastPiece();
            return f;
        });
    }

    /** A cluster fetch's pieces from peers, bound to S3 end to end; the flat tree read them all from S3. */
    private CompletableFuture<Filled> checkAgainstS3(Filled filled) {
        ClusterRun run = clusterRun;
        return run == null ? CompletableFuture.completedFuture(filled)
                : new ClusterCheck(run, file, timer).check(filled);
    }

    /** Publishes the file if the end-to-end check passed, and says what the fetch came to. */
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
            LOG.info("s3://{}/{}: after the last piece, {} ms: spot check {} ms, end-to-end check {} ms ({} MiB left to"
                    + " hash at the last piece), fsync and rename {} ms", info.bucket(), info.key(),
                    after.total().toMillis(), after.spotCheck().toMillis(), after.hashing().toMillis(),
                    String.format(Locale.ROOT, "%.1f", leftToHash / 1048576.0), after.commit().toMillis());
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
