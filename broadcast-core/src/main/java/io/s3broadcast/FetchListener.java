package io.s3broadcast;

/**
 * Hears how a fetch goes. Every method has a no-op default, so implement only what you need.
 *
 * <p>Rules, as for the AWS SDK's transfer listeners: methods may be called from any thread, often an I/O
 * thread, so they must return quickly and never block; calls for one fetch are not concurrent; an
 * exception thrown by a listener is logged and otherwise ignored, and never fails the fetch.
 */
public interface FetchListener {

    /** The object has been looked up; {@code progress} knows its size. */
    default void fetchInitiated(FetchProgress progress) {
    }

    /** More of the object is present locally. Called at most once per piece. */
    default void bytesTransferred(FetchProgress progress) {
    }

    /** The object is at its path, verified. */
    default void fetchComplete(CompletedFetch result) {
    }

    /** The fetch failed or was cancelled; nothing is at the destination path. */
    default void fetchFailed(Throwable cause) {
    }
}
