package io.s3broadcast.p2p.protocol;

/**
 * The sender will not serve the receiver's requests until it sends {@link Unchoke}; requests still queued are rejected (see {@link Reject}).
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
