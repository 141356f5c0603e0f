package io.s3broadcast.p2p.protocol;

import io.s3broadcast.spi.PieceLayout;
import java.util.Objects;

/**
 * User event fired once the peer has proved that it holds the group's secret and its handshake has been accepted,
 * after the handshake handler has removed itself. The exchange handler starts on it (typically by sending our
 * {@link BitfieldMessage}); every message after it is from the authenticated peer.
 *
 * @param local the handshake we sent
 * @param peer the handshake the peer sent
 * @param peerAuth the peer's verified proof, with its frame limit and listen port
 * @param layout the layout both sides share
 */
public record HandshakeCompleted(Handshake local, Handshake peer, Auth peerAuth, PieceLayout layout) {

    public HandshakeCompleted {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(peerAuth, "peerAuth");
        Objects.requireNonNull(layout, "layout");
    }

    public String peerNodeId() {
        return peer.nodeId();
    }

    /** The port the peer accepts connections on, or 0. */
    public int peerListenPort() {
        return peerAuth.listenPort();
    }

    /** The largest frame the peer accepts; bounds what we may send it (see {@link GiveWorkResponse#maxWorks}). */
    public int peerMaxFrameLength() {
        return peerAuth.maxFrameLength();
    }
}
