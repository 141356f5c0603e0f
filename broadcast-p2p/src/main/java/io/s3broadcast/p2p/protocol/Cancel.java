package io.s3broadcast.p2p.protocol;

/**
 * Withdraws an earlier {@link Request} (the piece came from elsewhere). The receiver answers with a {@link Reject}
 * if it has not sent the piece yet; otherwise the {@link Piece} is already on its way. Either way the request still
 * gets its one answer, and the requester ignores a piece it no longer needs.
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
