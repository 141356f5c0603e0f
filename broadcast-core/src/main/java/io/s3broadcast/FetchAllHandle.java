package io.s3broadcast;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link Broadcast#fetchAll fetchAll} under way: every object under a prefix as one broadcast, with one
 * progress over all of them.
 */
public interface FetchAllHandle {

    /**
     * Completes with every object's result in key order once all are done, or exceptionally with the first
     * failure (a {@link BroadcastException}), the other fetches then cancelled. Always completes. Cancelling
     * this future cancels every fetch.
     */
    CompletableFuture<List<CompletedFetch>> completionFuture();

    /**
     * One snapshot over all the objects: {@code totalBytes} is the sum of their sizes ({@code -1} until they
     * are listed), {@code transferredBytes} what is present locally of all of them (an object found unchanged
     * counts whole), {@code bytesFromS3} what all of them read from S3.
     */
    FetchProgress progress();

    /** Cancels every fetch; nothing partial is left at any destination path. */
    default void cancel() {
        completionFuture().cancel(true);
    }

    /**
     * Waits for the results as {@code completionFuture().join()} does: a failure is a
     * {@link java.util.concurrent.CompletionException} whose cause is the {@link BroadcastException}.
     */
    default List<CompletedFetch> join() {
        return completionFuture().join();
    }
}
