package io.s3broadcast.p2p.protocol;

/**
 * The sender lacks pieces the receiver has and would request them if unchoked.
 *
 * <p>No body. There is one instance, {@link #INSTANCE}.
 */
public final class Interested implements PeerMessage {

    public static final Interested INSTANCE = new Interested();

    private Interested() {
    }

    @Override
    public MessageType type() {
        return MessageType.INTERESTED;
    }

    @Override
    public String toString() {
        return "Interested";
    }
}
