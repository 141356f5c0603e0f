package io.s3broadcast.p2p.protocol;

/**
 * The sender has just verified and stored {@code piece}; the receiver adds it to what it knows the sender has.
 *
 * <p>Body: {@code piece} (int32). The decoder checks {@code 0 <= piece < pieceCount}.
 */
public record Have(int piece) implements PeerMessage {

    public Have {
        if (piece < 0) {
            throw new IllegalArgumentException("piece must be >= 0, was " + piece);
        }
    }

    @Override
    public MessageType type() {
        return MessageType.HAVE;
    }
}
