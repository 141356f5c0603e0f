package io.s3broadcast.spi;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256, the digest pieces are vouched for with in a cluster broadcast (every JDK has it). */
public final class Sha256 {

    /** Bytes of a digest. */
    public static final int BYTES = 32;

    private Sha256() {
    }

    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK has no SHA-256", e);
        }
    }

    /** The SHA-256 of the remaining bytes of {@code buffers}, read without moving their positions. */
    public static byte[] of(ByteBuffer... buffers) {
        MessageDigest md = newDigest();
        for (ByteBuffer b : buffers) {
            md.update(b.duplicate());
        }
        return md.digest();
    }
}
