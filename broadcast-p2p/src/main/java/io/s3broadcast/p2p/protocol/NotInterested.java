package io.s3broadcast.p2p.protocol;

/**
 * The sender wants nothing the receiver has (any more).
 *
 * <p>No body. There is one instance, {@link #INSTANCE}.
 */
public final class NotInterested implements PeerMessage {

    public static final NotInterested INSTANCE = new NotInterested();

    private NotInterested() {
    }

    @Override
    public MessageType type() {
        return MessageType.NOT_INTERESTED;
    }

    @Override
    public String toString() {
        return "NotInterested";
    }
}
