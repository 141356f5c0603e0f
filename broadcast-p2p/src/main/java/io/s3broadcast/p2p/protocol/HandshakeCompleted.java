package io.s3broadcast.p2p.protocol;

import io.s3broadcast.spi.PieceLayout;
import java.util.Objects;

/**
 * User event fired once the peer's handshake has been accepted, after the handshake handler has removed itself.
 * The exchange handler starts on it (typically by sending our {@link BitfieldMessage}); every message after it is
 * from the accepted peer.
 *
 * @param local the handshake we sent
 * @param peer the handshake the peer sent
 */
public record HandshakeCompleted(Handshake local, Handshake peer) {

    public HandshakeCompleted {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(peer, "peer");
    }

    public String peerNodeId() {
        return peer.nodeId();
    }

    /** The port the peer accepts connections on, or 0. */
    public int peerListenPort() {
        return peer.listenPort();
    }

    /** The largest frame the peer accepts; bounds what we may send it (see {@link GiveWorkResponse#maxWorks}). */
    public int peerMaxFrameLength() {
        return peer.maxFrameLength();
    }

    /** The layout both sides share. */
    public PieceLayout layout() {
        return local.layout();
    }
}
