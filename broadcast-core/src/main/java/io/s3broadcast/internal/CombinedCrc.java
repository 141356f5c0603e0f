package io.s3broadcast.internal;

import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.PieceLayout;

/**
 * A full-object CRC32, CRC32C or CRC64NVME: one segment per piece, in any order, joined with
 * {@link CrcCombine} at the end. For CRC32C each piece's value is the CRC32C recorded as it landed, so nothing
 * is read at all.
 */
final class CombinedCrc extends IncrementalDigest {

    CombinedCrc(ObjectChecksum expected, PieceLayout layout) {
        super(expected, layout, toArray(pieceCuts(layout, 0, layout.objectSize())), true);
    }

    @Override
    String fold(byte[][] segmentValues) {
        return encode(join(this, 0, segmentCount(), segmentValues));
    }

    /** The CRC of segments [from, to) from theirs. */
    static byte[] join(IncrementalDigest d, int from, int to, byte[][] segmentValues) {
        CrcCombine crc = CrcCombine.of(d.algorithm());
        if (to - from == 1) {
            return segmentValues[from];
        }
        long value = toLong(ObjectDigest.of(d.algorithm()).finish());
        for (int s = from; s < to; s++) {
            value = crc.combine(value, toLong(segmentValues[s]), d.end(s) - d.start(s));
        }
        return toBytes(value, crc.bytes());
    }
}
