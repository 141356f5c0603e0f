package io.s3broadcast.internal;

import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.PieceLayout;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A checksum of a multipart upload's parts: S3's composite checksums, and a multipart ETag (the MD5 of the
 * parts' MD5s): the digest of the parts' digests concatenated, {@code -N} appended. Parts are independent, so
 * each is its own segment fed in order (MD5, SHA); for a CRC each part is cut further at piece boundaries and
 * joined with {@link CrcCombine}, so its pieces may come in any order.
 */
final class CompositeDigest extends IncrementalDigest {

    /** For each part, the index of its first segment; one more entry for the end. */
    private final int[] partFirstSegment;

    CompositeDigest(ObjectChecksum expected, PieceLayout layout) {
        this(expected, layout, cuts(expected, layout));
    }

    private CompositeDigest(ObjectChecksum expected, PieceLayout layout, Cuts cuts) {
        super(expected, layout, cuts.bounds, true);
        this.partFirstSegment = cuts.partFirstSegment;
    }

    private record Cuts(long[] bounds, int[] partFirstSegment) {
    }

    private static Cuts cuts(ObjectChecksum expected, PieceLayout layout) {
        boolean crc = CrcCombine.of(expected.algorithm()) != null;
        List<Long> parts = expected.partSizes();
        List<Long> bounds = new ArrayList<>();
        int[] first = new int[parts.size() + 1];
        long at = 0;
        bounds.add(0L);
        for (int p = 0; p < parts.size(); p++) {
            first[p] = bounds.size() - 1;
            // Parts that do not add up to the object's size cannot match; cut at its end, so every segment ends.
            long end = Math.min(at + parts.get(p), layout.objectSize());
            if (crc) {
                List<Long> c = pieceCuts(layout, at, end);
                bounds.addAll(c.subList(1, c.size()));
            } else if (end > at) {
                bounds.add(end);
            }
            at = end;
        }
        first[parts.size()] = bounds.size() - 1;
        return new Cuts(toArray(bounds), first);
    }

    @Override
    String fold(byte[][] segmentValues) {
        ByteArrayOutputStream partDigests = new ByteArrayOutputStream();
        boolean crc = CrcCombine.of(algorithm()) != null;
        for (int p = 0; p + 1 < partFirstSegment.length; p++) {
            int from = partFirstSegment[p];
            int to = partFirstSegment[p + 1];
            if (to == from) {
                partDigests.writeBytes(ObjectDigest.of(algorithm()).finish());
            } else {
                partDigests.writeBytes(crc ? CombinedCrc.join(this, from, to, segmentValues) : segmentValues[from]);
            }
        }
        ObjectDigest ofParts = ObjectDigest.of(algorithm());
        ofParts.update(ByteBuffer.wrap(partDigests.toByteArray()));
        return encode(ofParts.finish()) + "-" + (partFirstSegment.length - 1);
    }
}
