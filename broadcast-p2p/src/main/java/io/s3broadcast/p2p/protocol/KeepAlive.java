package io.s3broadcast.p2p.protocol;

/**
 * Sent when nothing else has been sent for a while, so that the receiver's idle timeout does not close a quiet but healthy connection.
 *
 * <p>No body. There is one instance, {@link #INSTANCE}.
 */
public final class KeepAlive implements PeerMessage {

    public static final KeepAlive INSTANCE = new KeepAlive();

    private KeepAlive() {
    }

    @Override
    public MessageType type() {
        return MessageType.KEEP_ALIVE;
    }

    @Override
    public String toString() {
        return "KeepAlive";
    }
}
