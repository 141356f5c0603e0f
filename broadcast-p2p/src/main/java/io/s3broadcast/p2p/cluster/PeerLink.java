package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.PeerMessage;

/**
 * What the run's components need of one peer connection: sending messages (within the peer's frame limit)
 * and closing it with a reason.
 * {@link PeerHandler} is the real one; unit tests use a fake that records what was sent.
 */
interface PeerLink {

    /** Writes and flushes {@code message}; from any thread. */
    void send(PeerMessage message);

    /** Writes without flushing; from any thread. */
    void write(PeerMessage message);

    void flush();

    /** The largest frame the peer accepts (from its handshake): bounds what may be sent to it in one message. */
    int maxFrameLength();

    /**
     * Says {@code GOODBYE(reason, detail)} and closes the connection once it is written; after a
     * {@code MISBEHAVIOUR}, once the peer has closed its end too, or a short while at most ({@link PeerHandler}).
     */
    void goodbye(Goodbye.Reason reason, String detail);
}
