package io.s3broadcast.p2p.protocol;

/**
 * Withdraws an earlier {@link Request} (the piece came from elsewhere). The receiver drops it if not yet sent; a {@link Piece} already on the way may still arrive and should be ignored.
 *
 * <p>Body: {@code piece} (int32). The decoder checks {@code 0 <= piece < pieceCount}.
 */
public record Cancel(int piece) implements PeerMessage {

    public Cancel {
        if (piece < 0) {
            throw new IllegalArgumentException("piece must be >= 0, was " + piece);
        }
    }

    @Override
    public MessageType type() {
        return MessageType.CANCEL;
    }
}
