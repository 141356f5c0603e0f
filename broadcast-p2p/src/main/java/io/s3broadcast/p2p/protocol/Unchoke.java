package io.s3broadcast.p2p.protocol;

/**
 * The sender will now serve the receiver's requests.
 *
 * <p>No body. There is one instance, {@link #INSTANCE}.
 */
public final class Unchoke implements PeerMessage {

    public static final Unchoke INSTANCE = new Unchoke();

    private Unchoke() {
    }

    @Override
    public MessageType type() {
        return MessageType.UNCHOKE;
    }

    @Override
    public String toString() {
        return "Unchoke";
    }
}
