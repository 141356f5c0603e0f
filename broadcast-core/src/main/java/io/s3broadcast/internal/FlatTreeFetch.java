package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;

/**
 * The flat tree on one node: HEAD, check the destination, fetch every piece from S3 into a temporary file,
 * read it back to verify, then fsync and rename it into place. Any failure or cancellation removes the
 * temporary file; the future always completes.
 */
final class FlatTreeFetch implements FetchHandle {

    private final FetchRequest request;
    private final Settings settings;
    private final ObjectSource source;
    private final Executor executor;
    private final ProgressTracker tracker;
    private final CompletableFuture<CompletedFetch> result = new CompletableFuture<>();
    private volatile CompletableFuture<?> inFlight;
    private volatile PieceStore store;

    FlatTreeFetch(FetchRequest request, Settings settings, ObjectSource source, Executor executor, ProgressTracker tracker) {
        this.request = request;
        this.settings = settings;
        this.source = source;
        this.executor = executor;
        this.tracker = tracker;
        result.whenComplete((r, e) -> {
            if (e != null) {
                cleanUp();
                tracker.failed(e);
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
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        CompletableFuture<ObjectInfo> head = source.head(request.bucket(), request.key());
        inFlight = head;
        head.thenApplyAsync(info -> prepare(info, destination), executor)
                .thenCompose(info -> {
                    CompletableFuture<Void> fetch = source.fetch(info, PieceQueue.ofRange(0, store.layout().pieceCount()),
                            store, tracker);
                    inFlight = fetch;
                    if (result.isDone()) {
                        fetch.cancel(true);
                    }
                    return fetch.thenApply(v -> info);
                })
                .thenApplyAsync(this::verifyAndCommit, executor)
                .whenComplete((done, error) -> {
                    if (error != null) {
                        fail(error);
                    } else if (result.complete(done)) {
                        tracker.completed(done);
                    }
                });
    }

    void fail(Throwable error) {
        result.completeExceptionally(unwrap(error));
    }

    private ObjectInfo prepare(ObjectInfo info, Path destination) {
        String object = "s3://" + info.bucket() + "/" + info.key();
        Destinations.check(destination, info.size(), object);
        PieceLayout layout = new PieceLayout(info.size(), settings.pieceSize());
        try {
            store = PieceStore.create(destination, layout);
        } catch (IOException e) {
            throw Destinations.unusable("cannot create a temporary file beside " + destination + " (" + e
                    + "): choose a writable destination for " + object, e);
        }
        if (result.isDone()) {
            cleanUp();
            throw new CancellationException();
        }
        tracker.initiated(layout);
        return info;
    }

    private CompletedFetch verifyAndCommit(ObjectInfo info) {
        PieceStore s = store;
        try {
            boolean checked = ObjectVerifier.verify(s, info);
            if (result.isDone()) {
                throw new CancellationException();
            }
            Path path = s.commit();
            return new CompletedFetch(path, info.bucket(), info.key(), info.eTag(), info.size(), Strategy.FLAT_TREE,
                    tracker.elapsed(), tracker.bytesFromSource(), 0, checked);
        } catch (IOException e) {
            throw new BroadcastException("cannot write s3://" + info.bucket() + "/" + info.key() + " to "
                    + s.destination() + ": " + e, e);
        }
    }

    private void cleanUp() {
        CompletableFuture<?> f = inFlight;
        if (f != null) {
            f.cancel(true);
        }
        PieceStore s = store;
        if (s != null) {
            s.close();
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
