package io.s3broadcast.p2p.protocol;

/**
 * The sender has every piece of the object: the receiver may stop sending it {@link Have}s and need never be interested in the sender's requests again.
 *
 * <p>No body. There is one instance, {@link #INSTANCE}.
 */
public final class Done implements PeerMessage {

    public static final Done INSTANCE = new Done();

    private Done() {
    }

    @Override
    public MessageType type() {
        return MessageType.DONE;
    }

    @Override
    public String toString() {
        return "Done";
    }
}
