package io.s3broadcast.spi;

/**
 * What an {@link ObjectSource} reports while it fetches. Called from any thread, often on an I/O thread:
 * implementations must be quick and must not block.
 */
public interface SourceListener {

    SourceListener NONE = new SourceListener() { };

    /** {@code bytes} more bytes of the object arrived from the source (counted before pieces complete). */
    default void bytesReceived(long bytes) {
    }

    /** A piece of {@code bytes} bytes from a peer was checked and stored (told before its {@link #pieceStored}). */
    default void bytesFromPeers(long bytes) {
    }

    /** A peer connection of this run began exchanging pieces. */
    default void peerConnected(String nodeId) {
    }

    /** A peer connection of this run ended; one call for each {@link #peerConnected}, at the latest when the run stops. */
    default void peerDisconnected(String nodeId) {
    }

    /** A piece is written and recorded in the store. */
    default void pieceStored(int piece) {
    }

    /**
     * A ranged GET in flight read much slower than a new one would, so its last {@code tailBytes} bytes were
     * given to a new GET (a hedge) and it stops where that one begins.
     */
    default void hedged(long tailBytes) {
    }

    /** A request failed and will be retried after {@code delayMillis}. */
    default void retrying(PieceRun run, int attempt, long delayMillis, Throwable cause) {
    }
}
