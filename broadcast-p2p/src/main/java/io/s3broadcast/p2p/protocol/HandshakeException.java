package io.s3broadcast.p2p.protocol;

import java.util.Objects;

/**
 * The handshake failed: the peer is in another group, cuts the object differently, is this node itself, did
 * not answer in time, and so on. {@link #reason()} is also what we told the peer in our {@link Goodbye}.
 */
public final class HandshakeException extends ProtocolException {

    private static final long serialVersionUID = 1L;

    private final Goodbye.Reason reason;

    public HandshakeException(Goodbye.Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Goodbye.Reason reason() {
        return reason;
    }
}
