package io.s3broadcast.p2p.protocol;

import io.s3broadcast.spi.PieceLayout;
import java.util.Arrays;
import java.util.Objects;

/**
 * The second message of each side: the proof that the sender holds the group's secret, and what the sender must
 * not tell a stranger (the piece layout, its frame limit and listen port). The dialling side sends it as soon as
 * the peer's {@link Handshake} is in; the accepting side only after it has verified the dialler's, so a stranger
 * who dials learns nothing beyond the accepting node's handshake.
 *
 * <p>Body ({@value #BODY_LENGTH} bytes): MAC ({@value #MAC_BYTES} bytes, see {@link PeerAuthenticator}), object
 * size (int64), piece size (int32), max frame length (int32), listen port (uint16).
 *
 * @param mac HMAC-SHA256 over both nonces, the group, both node ids, the direction and the fields below
 * @param objectSize size of the object in bytes
 * @param pieceSize the piece size in bytes
 * @param maxFrameLength the largest frame (bytes after the length field) the sender accepts
 * @param listenPort the TCP port the sender accepts peers on, or 0 when it does not
 */
public record Auth(byte[] mac, long objectSize, int pieceSize, int maxFrameLength, int listenPort)
        implements PeerMessage {

    /** Bytes of the MAC. */
    public static final int MAC_BYTES = 32;

    /** Bytes of the body. */
    public static final int BODY_LENGTH = MAC_BYTES + 8 + 4 + 4 + 2;

    public Auth {
        Objects.requireNonNull(mac, "mac");
        if (mac.length != MAC_BYTES) {
            throw new IllegalArgumentException("mac must have " + MAC_BYTES + " bytes, has " + mac.length);
        }
        mac = mac.clone();
        new PieceLayout(objectSize, pieceSize); // validates both
        if (maxFrameLength <= 0) {
            throw new IllegalArgumentException("maxFrameLength must be > 0, was " + maxFrameLength);
        }
        if (listenPort < 0 || listenPort > 0xFFFF) {
            throw new IllegalArgumentException("listenPort must be 0-65535, was " + listenPort);
        }
    }

    @Override
    public byte[] mac() {
        return mac.clone();
    }

    byte[] macUnsafe() {
        return mac;
    }

    public PieceLayout layout() {
        return new PieceLayout(objectSize, pieceSize);
    }

    @Override
    public MessageType type() {
        return MessageType.AUTH;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Auth a && Arrays.equals(a.mac, mac) && a.objectSize == objectSize
                && a.pieceSize == pieceSize && a.maxFrameLength == maxFrameLength && a.listenPort == listenPort;
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(mac), objectSize, pieceSize, maxFrameLength, listenPort);
    }

    @Override
    public String toString() {
        return "Auth[objectSize=" + objectSize + ", pieceSize=" + pieceSize + ", maxFrameLength=" + maxFrameLength
                + ", listenPort=" + listenPort + "]";
    }
}
