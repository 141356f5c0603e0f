package io.s3broadcast.internal;

import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.PieceLayout;

/**
 * A full-object MD5, SHA-1 or SHA-256: one segment, the whole object, fed in order. (An ETag's MD5 of a
 * single-part upload is one.)
 */
final class SequentialDigest extends IncrementalDigest {

    SequentialDigest(ObjectChecksum expected, PieceLayout layout) {
        super(expected, layout, new long[] {0, layout.objectSize()}, false);
    }

    @Override
    String fold(byte[][] segmentValues) {
        return encode(segmentValues[0]);
    }
}
