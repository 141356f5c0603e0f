package io.s3broadcast;

import java.util.concurrent.CompletableFuture;

/** A fetch under way. */
public interface FetchHandle {

    /**
     * Completes with the result, or exceptionally with a {@link BroadcastException} (or a
     * {@link java.util.concurrent.CancellationException} after {@link #cancel()}). Always completes.
     * Cancelling this future cancels the fetch.
     */
    CompletableFuture<CompletedFetch> completionFuture();

    /** A snapshot of the progress so far. */
    FetchProgress progress();

    /** Cancels the fetch: requests in flight are cancelled and the temporary file is removed. */
    default void cancel() {
        completionFuture().cancel(true);
    }

    /**
     * Waits for the result. Failures are thrown as they are (a {@link BroadcastException} or a
     * {@link java.util.concurrent.CancellationException}), not wrapped.
     */
    default CompletedFetch join() {
        return Futures.join(completionFuture());
    }
}
