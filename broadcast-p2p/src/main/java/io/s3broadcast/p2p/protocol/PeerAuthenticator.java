package io.s3broadcast.p2p.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Proves and checks that a peer holds the group's secret: the MAC of an {@link Auth} is
 *
 * <pre>
 *   HMAC-SHA256(secret, "s3broadcast-auth-v2" || direction || group || proverId || verifierId
 *                       || proverNonce || verifierNonce || objectSize || pieceSize || maxFrameLength || listenPort)
 * </pre>
 *
 * where direction is 0 when the dialling side proves and 1 when the accepting side does, and group and the node
 * ids are each preceded by their UTF-8 length (one byte). Both nonces are fresh per connection and the direction
 * and both ids are bound, so a MAC cannot be replayed on another connection nor reflected back to its sender; the
 * layout fields are bound so a man in the middle cannot change them. MACs are compared in constant time.
 *
 * <p>Insecure mode uses an empty key (HMAC pads a key to its block size with zeros, so the one-zero-byte key used
 * here is the empty key): any peer in insecure mode passes, and a node with a secret refuses a node without one
 * and the other way round, before any MAC is checked.
 *
 * <p>The same key signs {@link Digests} (see {@link #digestsMac}), so a digest list cannot be altered on the
 * way after the handshake on a link without TLS.
 *
 * <p>The secret never leaves this object: {@link #toString()} does not show it.
 */
public final class PeerAuthenticator {

    /** Shortest secret accepted, in bytes. */
    public static final int MIN_SECRET_BYTES = 16;

    private static final byte[] LABEL = "s3broadcast-auth-v2".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DIGESTS_LABEL = "s3broadcast-digests-v2".getBytes(StandardCharsets.US_ASCII);
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final boolean authenticated;
    /**
     * A MAC keyed once and never used itself: every MAC is a clone of it, which skips the provider lookup and the
     * key's pads that {@code Mac.getInstance} and {@code init} cost per message (a {@code DIGESTS} is signed and
     * checked per piece and peer). Null when this JDK's HMAC cannot be cloned.
     */
    private final Mac prototype;

    private PeerAuthenticator(byte[] key, boolean authenticated) {
        this.key = new SecretKeySpec(key, ALGORITHM);
        this.authenticated = authenticated;
        this.prototype = prototype(this.key);
    }

    private static Mac prototype(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            mac.clone();
            return mac;
        } catch (CloneNotSupportedException e) {
            return null;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available: " + e, e);
        }
    }

    /** Authenticates with {@code secret}, at least {@value #MIN_SECRET_BYTES} bytes. */
    public static PeerAuthenticator withSecret(byte[] secret) {
        if (secret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("the group secret has " + secret.length + " bytes; use at least "
                    + MIN_SECRET_BYTES + " random bytes (e.g. `openssl rand -hex 32`)");
        }
        return new PeerAuthenticator(secret.clone(), true);
    }

    /** No secret: every peer that is also insecure is accepted. */
    public static PeerAuthenticator insecure() {
        return new PeerAuthenticator(new byte[1], false);
    }

    /** True when this node holds a secret (its handshake says so). */
    public boolean authenticated() {
        return authenticated;
    }

    /** The MAC of an {@link Auth} with these fields, sent by {@code prover} to {@code verifier}. */
    byte[] mac(boolean dialerProves, Handshake prover, Handshake verifier, long objectSize, int pieceSize,
            int maxFrameLength, int listenPort) {
        byte[] group = prover.group().getBytes(StandardCharsets.UTF_8);
        byte[] proverId = prover.nodeId().getBytes(StandardCharsets.UTF_8);
        byte[] verifierId = verifier.nodeId().getBytes(StandardCharsets.UTF_8);
        ByteBuffer input = ByteBuffer.allocate(LABEL.length + 1 + 3 + group.length + proverId.length + verifierId.length
                + 2 * Handshake.NONCE_BYTES + 8 + 4 + 4 + 2);
        input.put(LABEL).put((byte) (dialerProves ? 0 : 1))
                .put((byte) group.length).put(group)
                .put((byte) proverId.length).put(proverId)
                .put((byte) verifierId.length).put(verifierId)
                .put(prover.nonceUnsafe()).put(verifier.nonceUnsafe())
                .putLong(objectSize).putInt(pieceSize).putInt(maxFrameLength).putShort((short) listenPort);
        return hmac(input.array());
    }

    /**
     * The MAC of a {@link Digests} that {@code vouchingNodeId} sends in {@code group}:
     *
     * <pre>
     *   HMAC-SHA256(secret, "s3broadcast-digests-v2" || group || vouchingNodeId || first || count || digests)
     * </pre>
     *
     * with group and the node id each preceded by their UTF-8 length (one byte), first and count as int32.
     */
    byte[] digestsMac(String group, String vouchingNodeId, int first, byte[] digests) {
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        byte[] id = vouchingNodeId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer input = ByteBuffer.allocate(DIGESTS_LABEL.length + 2 + g.length + id.length + 8 + digests.length);
        input.put(DIGESTS_LABEL).put((byte) g.length).put(g).put((byte) id.length).put(id)
                .putInt(first).putInt(digests.length / Digests.DIGEST_BYTES).put(digests);
        return hmac(input.array());
    }

    /** Whether {@code d}, vouched for by {@code vouchingNodeId} in {@code group}, carries the right MAC; constant time. */
    boolean verifyDigests(String group, String vouchingNodeId, Digests d) {
        return MessageDigest.isEqual(digestsMac(group, vouchingNodeId, d.first(), d.bytesUnsafe()), d.macUnsafe());
    }

    private byte[] hmac(byte[] input) {
        try {
            Mac mac;
            if (prototype != null) {
                mac = (Mac) prototype.clone();
            } else {
                mac = Mac.getInstance(ALGORITHM);
                mac.init(key);
            }
            return mac.doFinal(input);
        } catch (CloneNotSupportedException | GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available: " + e, e);
        }
    }

    /** Our {@link Auth}, proving to {@code verifier} that {@code prover} (we) holds the secret. */
    Auth prove(boolean dialerProves, Handshake prover, Handshake verifier, long objectSize, int pieceSize,
            int maxFrameLength, int listenPort) {
        return new Auth(mac(dialerProves, prover, verifier, objectSize, pieceSize, maxFrameLength, listenPort),
                objectSize, pieceSize, maxFrameLength, listenPort);
    }

    /** Whether {@code auth}, from {@code prover} to {@code verifier} (us), carries the right MAC; constant time. */
    boolean verify(boolean dialerProves, Handshake prover, Handshake verifier, Auth auth) {
        byte[] expected = mac(dialerProves, prover, verifier, auth.objectSize(), auth.pieceSize(),
                auth.maxFrameLength(), auth.listenPort());
        return MessageDigest.isEqual(expected, auth.macUnsafe());
    }

    @Override
    public String toString() {
        return authenticated ? "PeerAuthenticator[secret]" : "PeerAuthenticator[insecure]";
    }
}
