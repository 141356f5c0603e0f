package io.s3broadcast.p2p.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A {@link Digests} list passed on unchanged from the node that vouched for it ({@code origin}), in a bounded
 * overlay where that node is not this one's peer. Its MAC is the origin's (over the group, the origin's id and
 * the digests), so the receiver checks it against {@code origin}, not against the peer that passed it on, and takes
 * it as the origin's word. A node passes on only lists whose MAC it checked, each once, to its other peers.
 *
 * <p>Body: origin id length (uint8, at least 1), the origin id in UTF-8, then a {@code DIGESTS} body.
 */
public record RelayedDigests(String origin, Digests digests) implements PeerMessage {

    /** Body bytes besides the origin id and the digests: its length byte, first, count and the MAC. */
    static final int FIXED_BODY_LENGTH = 1 + Digests.FIXED_BODY_LENGTH;

    public RelayedDigests {
        Objects.requireNonNull(digests, "digests");
        int length = origin.getBytes(StandardCharsets.UTF_8).length;
        if (length < 1 || length > Handshake.MAX_STRING_BYTES) {
            throw new IllegalArgumentException("origin id must have 1 to " + Handshake.MAX_STRING_BYTES
                    + " UTF-8 bytes, had " + length);
        }
    }

    /** The most digests one message can carry for {@code origin} to a peer that accepts frames of this length. */
    public static int maxDigests(int maxFrameLength, String origin) {
        int id = origin.getBytes(StandardCharsets.UTF_8).length;
        return Math.max(0, (maxFrameLength - FrameLimits.TYPE_BYTES - FIXED_BODY_LENGTH - id) / Digests.DIGEST_BYTES);
    }

    @Override
    public MessageType type() {
        return MessageType.RELAYED_DIGESTS;
    }
}
