package io.s3broadcast.internal;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/** One of S3's checksum algorithms, fed bytes, giving the raw big-endian value S3 base64-encodes. */
abstract class ObjectDigest {

    abstract void update(ByteBuffer bytes);

    abstract byte[] finish();

    /** Whether {@link #of} knows {@code algorithm}. */
    static boolean supports(String algorithm) {
        return switch (algorithm.toUpperCase(Locale.ROOT)) {
            case "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256", "MD5" -> true;
            default -> false;
        };
    }

    static ObjectDigest of(String algorithm) {
        return switch (algorithm.toUpperCase(Locale.ROOT)) {
            case "CRC32" -> new Crc(new CRC32(), 4);
            case "CRC32C" -> new Crc(new CRC32C(), 4);
            case "CRC64NVME" -> new Crc(new Crc64Nvme(), 8);
            case "SHA1" -> new Digest("SHA-1");
            case "SHA256" -> new Digest("SHA-256");
            case "MD5" -> new Digest("MD5");
            default -> throw new IllegalArgumentException("unknown checksum algorithm " + algorithm);
        };
    }

    private static final class Crc extends ObjectDigest {
        private final Checksum checksum;
        private final int width;

        Crc(Checksum checksum, int width) {
            this.checksum = checksum;
            this.width = width;
        }

        @Override
        void update(ByteBuffer bytes) {
            checksum.update(bytes);
        }

        @Override
        byte[] finish() {
            long v = checksum.getValue();
            byte[] out = new byte[width];
            for (int i = 0; i < width; i++) {
                out[i] = (byte) (v >>> (8 * (width - 1 - i)));
            }
            return out;
        }
    }

    private static final class Digest extends ObjectDigest {
        private final MessageDigest md;

        Digest(String name) {
            try {
                md = MessageDigest.getInstance(name);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(name + " is missing from this JVM", e);
            }
        }

        @Override
        void update(ByteBuffer bytes) {
            md.update(bytes);
        }

        @Override
        byte[] finish() {
            return md.digest();
        }
    }
}
