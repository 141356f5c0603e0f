package io.s3broadcast.p2p.protocol;

/**
 * Asks for the whole of {@code piece}; answered by a {@link Piece} or a {@link Reject}.
 *
 * <p>Body: {@code piece} (int32). The decoder checks {@code 0 <= piece < pieceCount}.
 */
public record Request(int piece) implements PeerMessage {

    public Request {
        if (piece < 0) {
            throw new IllegalArgumentException("piece must be >= 0, was " + piece);
        }
    }

    @Override
    public MessageType type() {
        return MessageType.REQUEST;
    }
}
