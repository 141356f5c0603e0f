package io.s3broadcast;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

final class Futures {

    private Futures() {
    }

    /** Joins, rethrowing a failure's cause (unwrapped from CompletionException) where it is unchecked. */
    static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                re.addSuppressed(new Exception("joined here"));
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new BroadcastException(String.valueOf(cause), cause);
        }
    }
}
