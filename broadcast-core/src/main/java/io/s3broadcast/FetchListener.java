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

    /**
     * {@code bytes} more bytes arrived from S3, counted as they arrive (before their piece is complete; retried
     * reads included). Called often: keep it cheap.
     */
    default void bytesFromS3(long bytes) {
    }

    /** A piece of {@code bytes} bytes arrived from a peer, checked, and is stored (cluster strategies). */
    default void bytesFromPeers(long bytes) {
    }

    /**
     * This node is now exchanging pieces with peer {@code nodeId} for this fetch (cluster strategies). Every call is
     * followed, later, by one {@link #peerDisconnected} for the same peer, at the latest when the fetch stops
     * serving peers (after its linger time, or on {@code close()}): counting the two gives the active peers.
     */
    default void peerConnected(String nodeId) {
    }

    /** The connection to peer {@code nodeId} for this fetch ended. */
    default void peerDisconnected(String nodeId) {
    }

    /**
     * The object is at its path, verified. Called before the fetch's future completes: a caller returning from
     * {@code join()} has seen it.
     */
    default void fetchComplete(CompletedFetch result) {
    }

    /**
     * The fetch failed or was cancelled; nothing is at the destination path. Called before the fetch's future
     * completes, except when the caller cancels that future itself: then just after, in the caller's thread.
     */
    default void fetchFailed(Throwable cause) {
    }
}
