package io.s3broadcast.internal;

import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchAllHandle;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchProgress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@code fetchAll}: the objects' fetches, one tracker over all of them, and one future that completes with
 * every result in order or with the first failure (the others then cancelled). Always completes.
 */
final class BatchFetch implements FetchAllHandle {

    private final ProgressTracker tracker;
    private final CompletableFuture<List<CompletedFetch>> result = new CompletableFuture<>();
    private volatile List<? extends FetchHandle> parts = List.of();

    BatchFetch(ProgressTracker tracker) {
        this.tracker = tracker;
        result.whenComplete((r, e) -> {
            if (e != null) {
                parts.forEach(FetchHandle::cancel);
                tracker.failed(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            }
        });
    }

    @Override
    public CompletableFuture<List<CompletedFetch>> completionFuture() {
        return result;
    }

    @Override
    public FetchProgress progress() {
        return tracker.snapshot();
    }

    ProgressTracker tracker() {
        return tracker;
    }

    boolean isDone() {
        return result.isDone();
    }

    void fail(Throwable cause) {
        result.completeExceptionally(cause instanceof CompletionException && cause.getCause() != null
                ? cause.getCause() : cause);
    }

    /** Waits for {@code handles}, started after the listing; cancelled at once if this was cancelled meanwhile. */
    void await(List<? extends FetchHandle> handles) {
        parts = handles;
        if (result.isDone()) {
            handles.forEach(FetchHandle::cancel);
            return;
        }
        AtomicInteger left = new AtomicInteger(handles.size());
        for (FetchHandle h : handles) {
            h.completionFuture().whenComplete((r, e) -> {
                if (e != null) {
                    fail(e);
                } else if (left.decrementAndGet() == 0) {
                    result.complete(handles.stream().map(x -> x.completionFuture().join()).toList());
                }
            });
        }
        if (handles.isEmpty()) {
            result.complete(List.of());
        }
    }
}
