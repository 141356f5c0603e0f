package io.s3broadcast.p2p.protocol;

/**
 * The sender will not serve the receiver's {@link Request} for {@code piece} (it is choking the receiver, lacks the piece, or the request was cancelled); the requester asks another peer. Every request gets exactly one {@link Piece} or {@code Reject}, so the requester never waits for an answer that will not come.
 *
 * <p>Body: {@code piece} (int32). The decoder checks {@code 0 <= piece < pieceCount}.
 */
public record Reject(int piece) implements PeerMessage {

    public Reject {
        if (piece < 0) {
            throw new IllegalArgumentException("piece must be >= 0, was " + piece);
        }
    }

    @Override
    public MessageType type() {
        return MessageType.REJECT;
    }
}
