package io.s3broadcast.p2p.protocol;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The first message each side sends, exactly once: who the sender is and a fresh random nonce to be challenged
 * with. It carries nothing a stranger should learn: the object's layout travels in {@link Auth}, after the
 * dialler has proved that it holds the group's secret.
 *
 * <p>Body (41 + g + n bytes): magic {@code "S3BC"} (4), version (uint16), flags (uint8: bit 0 set when the sender
 * authenticates with a secret, clear in insecure mode), nonce ({@value #NONCE_BYTES} random bytes), group length g
 * (uint8, 1-255), group (g bytes of UTF-8), node id length n (uint8, 1-255), node id (n bytes of UTF-8).
 *
 * @param version the protocol version the sender speaks, {@link #VERSION} for this code
 * @param group which broadcast the sender belongs to: the group's hash (the registry's {@code GroupId.hash()}),
 *     compared byte for byte
 * @param nodeId the sender's node id, unique in the group
 * @param nonce {@value #NONCE_BYTES} random bytes, new for every connection; the peer's {@link Auth} MAC covers it
 * @param authenticated true when the sender has a secret, false in insecure mode
 */
public record Handshake(int version, String group, String nodeId, byte[] nonce, boolean authenticated)
        implements PeerMessage {

    /** {@code "S3BC"} in ASCII, the first 4 bytes of the body. */
    public static final int MAGIC = 0x53334243;

    /** The protocol version this code speaks. */
    public static final int VERSION = 2;

    /** Longest group and longest node id, in UTF-8 bytes. */
    public static final int MAX_STRING_BYTES = 255;

    /** Bytes of the nonce. */
    public static final int NONCE_BYTES = 32;

    /** Flag bit: the sender authenticates with a secret. */
    static final int FLAG_AUTHENTICATED = 1;

    /** Body bytes besides the group and node id. */
    static final int FIXED_BODY_LENGTH = 4 + 2 + 1 + NONCE_BYTES + 1 + 1;

    /** Offset of the group's length byte in the body; the group follows it. */
    public static final int GROUP_LENGTH_BODY_OFFSET = 4 + 2 + 1 + NONCE_BYTES;

    /** Longest body. */
    public static final int MAX_BODY_LENGTH = FIXED_BODY_LENGTH + 2 * MAX_STRING_BYTES;

    private static final SecureRandom RANDOM = new SecureRandom();

    public Handshake {
        if (version < 0 || version > 0xFFFF) {
            throw new IllegalArgumentException("version must fit in 16 bits, was " + version);
        }
        checkString(group, "group");
        checkString(nodeId, "nodeId");
        Objects.requireNonNull(nonce, "nonce");
        if (nonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("nonce must have " + NONCE_BYTES + " bytes, has " + nonce.length);
        }
        nonce = nonce.clone();
    }

    private static void checkString(String value, String name) {
        int bytes = Objects.requireNonNull(value, name).getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > MAX_STRING_BYTES) {
            throw new IllegalArgumentException(name + " must have 1-" + MAX_STRING_BYTES + " UTF-8 bytes, has " + bytes);
        }
    }

    /** Our handshake for this code's {@link #VERSION}, with a fresh random nonce. */
    public static Handshake of(String group, String nodeId, boolean authenticated) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return new Handshake(VERSION, group, nodeId, nonce, authenticated);
    }

    @Override
    public byte[] nonce() {
        return nonce.clone();
    }

    /** The nonce without a copy; the caller must not change it. */
    byte[] nonceUnsafe() {
        return nonce;
    }

    @Override
    public MessageType type() {
        return MessageType.HANDSHAKE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Handshake h && h.version == version && h.group.equals(group) && h.nodeId.equals(nodeId)
                && Arrays.equals(h.nonce, nonce) && h.authenticated == authenticated;
    }

    @Override
    public int hashCode() {
        return Objects.hash(version, group, nodeId, Arrays.hashCode(nonce), authenticated);
    }

    @Override
    public String toString() {
        return "Handshake[version=" + version + ", group=" + group + ", nodeId=" + nodeId + ", nonce="
                + HexFormat.of().formatHex(nonce, 0, 4) + "…, authenticated=" + authenticated + "]";
    }
}
