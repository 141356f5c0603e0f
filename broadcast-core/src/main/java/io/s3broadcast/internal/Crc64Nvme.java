package io.s3broadcast.internal;

import java.nio.ByteBuffer;
import java.util.zip.Checksum;

/**
 * CRC-64/NVME, the checksum S3 computes by default for new objects: reflected polynomial
 * 0x9A6C9329AC4BC9B5, initial value and final xor all ones. Table-driven, eight bytes at a time.
 */
final class Crc64Nvme implements Checksum {

    private static final long POLY = 0x9A6C9329AC4BC9B5L;
    private static final long[][] TABLES = new long[8][256];

    static {
        for (int i = 0; i < 256; i++) {
            long crc = i;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ POLY : crc >>> 1;
            }
            TABLES[0][i] = crc;
        }
        for (int i = 0; i < 256; i++) {
            for (int t = 1; t < 8; t++) {
                long prev = TABLES[t - 1][i];
                TABLES[t][i] = (prev >>> 8) ^ TABLES[0][(int) (prev & 0xff)];
            }
        }
    }

    private long crc = -1L;

    @Override
    public void update(int b) {
        crc = (crc >>> 8) ^ TABLES[0][(int) ((crc ^ b) & 0xff)];
    }

    @Override
    public void update(byte[] b, int off, int len) {
        update(ByteBuffer.wrap(b, off, len));
    }

    @Override
    public void update(ByteBuffer buffer) {
        long c = crc;
        ByteBuffer buf = buffer.slice().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int n = buf.remaining();
        int i = 0;
        long[] t0 = TABLES[0], t1 = TABLES[1], t2 = TABLES[2], t3 = TABLES[3];
        long[] t4 = TABLES[4], t5 = TABLES[5], t6 = TABLES[6], t7 = TABLES[7];
        for (; i + 8 <= n; i += 8) {
            c ^= buf.getLong(i);
            c = t7[(int) (c & 0xff)] ^ t6[(int) ((c >>> 8) & 0xff)] ^ t5[(int) ((c >>> 16) & 0xff)]
                    ^ t4[(int) ((c >>> 24) & 0xff)] ^ t3[(int) ((c >>> 32) & 0xff)] ^ t2[(int) ((c >>> 40) & 0xff)]
                    ^ t1[(int) ((c >>> 48) & 0xff)] ^ t0[(int) (c >>> 56)];
        }
        for (; i < n; i++) {
            c = (c >>> 8) ^ t0[(int) ((c ^ buf.get(i)) & 0xff)];
        }
        crc = c;
        buffer.position(buffer.limit());
    }

    @Override
    public long getValue() {
        return ~crc;
    }

    @Override
    public void reset() {
        crc = -1L;
    }
}
