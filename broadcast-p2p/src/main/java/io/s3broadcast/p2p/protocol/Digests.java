package io.s3broadcast.p2p.protocol;

import java.util.Arrays;

/**
 * The SHA-256 of pieces the sender read from S3 itself (first-hand): piece {@code first + i} has the digest
 * {@code digest(i)}. A node sends these for its own S3 pieces before their {@code HAVE} on the same
 * connection, and all it has so far before its {@code BITFIELD}; it never relays digests of pieces it got
 * from peers. The receiver accepts a piece from a peer only when its SHA-256 matches a digest vouched for
 * this way (see {@code docs/protocol.md}, Integrity).
 *
 * <p>Body: {@code first} (int32), {@code count} (int32, at least 1), then {@code count} digests of
 * {@value #DIGEST_BYTES} bytes, then a {@value #MAC_BYTES}-byte MAC with the group secret over the group, the
 * vouching node's id and the rest of the body (see {@link PeerPipeline#signDigests}), so an on-path attacker
 * cannot alter them after the handshake even without TLS. The decoder checks that {@code [first, first + count)}
 * lies inside {@code [0, pieceCount)} and that the body length is {@code 8 + 32 * count + 32}; the receiver
 * checks the MAC ({@link PeerPipeline#verify}). A message must fit in the receiver's frame limit
 * ({@link #maxDigests(int)}).
 */
public final class Digests implements PeerMessage {

    /** Bytes of one SHA-256 digest. */
    public static final int DIGEST_BYTES = 32;

    /** Bytes of the MAC after the digests. */
    public static final int MAC_BYTES = 32;

    /** Body bytes besides the digests: first, count and the MAC. */
    static final int FIXED_BODY_LENGTH = 8 + MAC_BYTES;

    private final int first;
    private final byte[] digests;
    private final byte[] mac;

    /**
     * A signed digest list as it goes on the wire; {@link PeerPipeline#signDigests} makes one with the right MAC.
     *
     * @param digests {@code count * 32} bytes, piece {@code first}'s digest first; copied
     * @param mac the {@value #MAC_BYTES}-byte MAC; copied
     */
    public Digests(int first, byte[] digests, byte[] mac) {
        if (mac.length != MAC_BYTES) {
            throw new IllegalArgumentException("the MAC must have " + MAC_BYTES + " bytes, was " + mac.length);
        }
        if (first < 0) {
            throw new IllegalArgumentException("first piece must be >= 0, was " + first);
        }
        if (digests.length == 0 || digests.length % DIGEST_BYTES != 0) {
            throw new IllegalArgumentException("digests must be a positive multiple of " + DIGEST_BYTES
                    + " bytes, was " + digests.length);
        }
        this.first = first;
        this.digests = digests.clone();
        this.mac = mac.clone();
    }

    /** The most digests one message can carry to a peer that accepts frames of {@code maxFrameLength} bytes. */
    public static int maxDigests(int maxFrameLength) {
        return Math.max(0, (maxFrameLength - FrameLimits.TYPE_BYTES - FIXED_BODY_LENGTH) / DIGEST_BYTES);
    }

    public int first() {
        return first;
    }

    public int count() {
        return digests.length / DIGEST_BYTES;
    }

    /** The digest of piece {@code first() + i}, a copy. */
    public byte[] digest(int i) {
        return Arrays.copyOfRange(digests, i * DIGEST_BYTES, (i + 1) * DIGEST_BYTES);
    }

    /** The digests as one array, a copy. */
    public byte[] bytes() {
        return digests.clone();
    }

    /** The digests as one array, not copied: do not change it. */
    byte[] bytesUnsafe() {
        return digests;
    }

    /** The MAC, not copied: do not change it. */
    byte[] macUnsafe() {
        return mac;
    }

    @Override
    public MessageType type() {
        return MessageType.DIGESTS;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Digests d && d.first == first && Arrays.equals(d.digests, digests)
                && Arrays.equals(d.mac, mac);
    }

    @Override
    public int hashCode() {
        return 31 * first + Arrays.hashCode(digests);
    }

    @Override
    public String toString() {
        return "Digests[first=" + first + ", count=" + count() + "]";
    }
}
