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

    /** A piece is written and recorded in the store. */
    default void pieceStored(int piece) {
    }

    /** A request failed and will be retried after {@code delayMillis}. */
    default void retrying(PieceRun run, int attempt, long delayMillis, Throwable cause) {
    }
}
