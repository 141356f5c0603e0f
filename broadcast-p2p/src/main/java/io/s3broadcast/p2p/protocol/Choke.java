package io.s3broadcast.p2p.protocol;

/**
 * The sender will not serve the receiver's requests until it sends {@link Unchoke}; it answers every request still
 * queued, and any that arrives while choked, with a {@link Reject}.
 *
 * <p>No body. There is one instance, {@link #INSTANCE}.
 */
public final class Choke implements PeerMessage {

    public static final Choke INSTANCE = new Choke();

    private Choke() {
    }

    @Override
    public MessageType type() {
        return MessageType.CHOKE;
    }

    @Override
    public String toString() {
        return "Choke";
    }
}
