package io.s3broadcast.internal;

import java.util.Locale;

/**
 * Joins the CRCs of two adjacent byte runs into the CRC of both, without the bytes:
 * {@code crc(A || B) = combine(crc(A), crc(B), |B|)}, in O(log |B|) multiplications modulo the polynomial (the
 * method of zlib's {@code crc32_combine}). Holds for the reflected CRCs S3 uses, whose initial value and final
 * xor are both all ones: CRC32, CRC32C, CRC64NVME.
 */
final class CrcCombine {

    static final CrcCombine CRC32 = new CrcCombine(32, 0xEDB88320L);
    static final CrcCombine CRC32C = new CrcCombine(32, 0x82F63B78L);
    static final CrcCombine CRC64NVME = new CrcCombine(64, 0x9A6C9329AC4BC9B5L);

    private final int width;
    private final long poly;
    /** x^(2^k) modulo the polynomial, for every k a byte length can need (8 × 2^63 bits). */
    private final long[] powers = new long[67];

    private CrcCombine(int width, long poly) {
        this.width = width;
        this.poly = poly;
        powers[0] = 1L << (width - 2);
        for (int k = 1; k < powers.length; k++) {
            powers[k] = multiply(powers[k - 1], powers[k - 1]);
        }
    }

    /** The combiner for one of S3's CRC algorithms, or null for any other algorithm. */
    static CrcCombine of(String algorithm) {
        return switch (algorithm.toUpperCase(Locale.ROOT)) {
            case "CRC32" -> CRC32;
            case "CRC32C" -> CRC32C;
            case "CRC64NVME" -> CRC64NVME;
            default -> null;
        };
    }

    /** Width of the CRC in bytes. */
    int bytes() {
        return width / 8;
    }

    /** The CRC of A followed by B, from the CRC of A, the CRC of B and B's length in bytes. */
    long combine(long crcA, long crcB, long lengthB) {
        if (lengthB < 0) {
            throw new IllegalArgumentException("length must be >= 0, was " + lengthB);
        }
        return multiply(xPowerOfTwoTimes(lengthB, 3), crcA) ^ crcB;
    }

    /** x^(n × 2^k) modulo the polynomial. */
    private long xPowerOfTwoTimes(long n, int k) {
        long p = 1L << (width - 1);
        while (n != 0) {
            if ((n & 1) != 0) {
                p = multiply(powers[k], p);
            }
            n >>>= 1;
            k++;
        }
        return p;
    }

    /** a × b modulo the polynomial, both in the reflected representation (x^0 in the top bit). */
    private long multiply(long a, long b) {
        long m = 1L << (width - 1);
        long p = 0;
        while (true) {
            if ((a & m) != 0) {
                p ^= b;
                if ((a & (m - 1)) == 0) {
                    return p;
                }
            }
            m >>>= 1;
            b = (b & 1) != 0 ? (b >>> 1) ^ poly : b >>> 1;
        }
    }
}
