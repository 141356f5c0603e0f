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
     * Waits for the result, as {@code completionFuture().join()} does (the AWS SDK's convention): a failed fetch
     * throws a {@link java.util.concurrent.CompletionException} whose {@link Throwable#getCause() cause} is the
     * {@link BroadcastException} (or a subclass such as {@link BroadcastException.ObjectNotFound}); a cancelled
     * one throws {@link java.util.concurrent.CancellationException}. The one-call {@link Broadcast#fetch(String,
     * String)} throws the {@code BroadcastException} itself.
     */
    default CompletedFetch join() {
        return completionFuture().join();
    }
}
