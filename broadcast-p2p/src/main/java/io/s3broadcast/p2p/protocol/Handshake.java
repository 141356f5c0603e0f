package io.s3broadcast.p2p.protocol;

import io.s3broadcast.spi.PieceLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The first message each side sends, exactly once. The peer accepts it when the version, the group and the piece
 * layout equal its own, the node id differs from its own and {@code maxFrameLength} can carry the largest message
 * the peer has to send.
 *
 * <p>Body (26 + g + n bytes): magic {@code "S3BC"} (4), version (uint16), object size (int64), piece size
 * (int32), max frame length (int32), listen port (uint16), group length g (uint8, 1-255), group (g bytes of
 * UTF-8), node id length n (uint8, 1-255), node id (n bytes of UTF-8).
 *
 * @param version the protocol version the sender speaks, {@link #VERSION} for this code
 * @param group which broadcast the sender belongs to: the group's hash (the registry's {@code GroupId.hash()},
 *     derived from bucket, key, ETag and group name), compared byte for byte
 * @param nodeId the sender's node id, unique in the group
 * @param listenPort the TCP port the sender accepts peers on, or 0 when it does not
 * @param objectSize size of the object in bytes
 * @param pieceSize the piece size in bytes
 * @param maxFrameLength the largest frame (bytes after the length field) the sender accepts
 */
public record Handshake(
        int version, String group, String nodeId, int listenPort, long objectSize, int pieceSize,
        int maxFrameLength) implements PeerMessage {

    /** {@code "S3BC"} in ASCII, the first 4 bytes of the body. */
    public static final int MAGIC = 0x53334243;

    /** The protocol version this code speaks. */
    public static final int VERSION = 1;

    /** Longest group and longest node id, in UTF-8 bytes. */
    public static final int MAX_STRING_BYTES = 255;

    /** Body bytes besides the group and node id. */
    static final int FIXED_BODY_LENGTH = 4 + 2 + 8 + 4 + 4 + 2 + 1 + 1;

    /** Longest body. */
    public static final int MAX_BODY_LENGTH = FIXED_BODY_LENGTH + 2 * MAX_STRING_BYTES;

    public Handshake {
        if (version < 0 || version > 0xFFFF) {
            throw new IllegalArgumentException("version must fit in 16 bits, was " + version);
        }
        checkString(group, "group");
        checkString(nodeId, "nodeId");
        if (listenPort < 0 || listenPort > 0xFFFF) {
            throw new IllegalArgumentException("listenPort must be 0-65535, was " + listenPort);
        }
        new PieceLayout(objectSize, pieceSize); // validates both
        if (maxFrameLength <= 0) {
            throw new IllegalArgumentException("maxFrameLength must be > 0, was " + maxFrameLength);
        }
    }

    private static void checkString(String value, String name) {
        int bytes = Objects.requireNonNull(value, name).getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > MAX_STRING_BYTES) {
            throw new IllegalArgumentException(name + " must have 1-" + MAX_STRING_BYTES + " UTF-8 bytes, has " + bytes);
        }
    }

    /** Our handshake for this code's {@link #VERSION}. */
    public static Handshake of(String group, String nodeId, int listenPort, PieceLayout layout, int maxFrameLength) {
        return new Handshake(VERSION, group, nodeId, listenPort, layout.objectSize(), layout.pieceSize(), maxFrameLength);
    }

    public PieceLayout layout() {
        return new PieceLayout(objectSize, pieceSize);
    }

    @Override
    public MessageType type() {
        return MessageType.HANDSHAKE;
    }
}
