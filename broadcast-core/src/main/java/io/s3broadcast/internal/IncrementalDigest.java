package io.s3broadcast.internal;

import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.PieceLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * One whole-object checksum computed as the object's pieces land, in whatever order: the object is cut into
 * <em>segments</em>, byte runs each of which must be fed in order from its start, independently of the others;
 * each segment's digest is kept, and {@link #value()} folds them into the checksum S3 states. How the object is
 * cut is the kind's business: one segment for an MD5 or SHA of the whole object, one per part for a composite
 * checksum or a multipart ETag, one per piece (or piece within a part) for a CRC, whose segments are joined
 * with {@link CrcCombine}. A segment that is exactly one piece of a CRC32C checksum needs no bytes at all: its
 * value is the CRC32C recorded when the piece landed ({@link #pieceCompleted}).
 *
 * <p>Not thread-safe: {@link PrefixHasher} calls it under its lock (itself or through {@link SegmentCursors}),
 * except {@link #update} of a segment it alone is reading.
 */
abstract class IncrementalDigest {

    private final ObjectChecksum expected;
    private final String algorithm;
    private final long[] starts;
    private final long[] ends;
    private final boolean[] recorded;
    private final ObjectDigest[] running;
    private final long[] fed;
    private final byte[][] values;
    private final PieceLayout layout;

    /**
     * @param bounds the segments' boundaries, ascending: segment i is [bounds[i], bounds[i + 1])
     * @param fromRecordedCrc32c whether segments that are exactly one piece take the piece's recorded CRC32C
     */
    IncrementalDigest(ObjectChecksum expected, PieceLayout layout, long[] bounds, boolean fromRecordedCrc32c) {
        this.expected = expected;
        this.algorithm = expected.algorithm().toUpperCase(Locale.ROOT);
        this.layout = layout;
        int n = Math.max(0, bounds.length - 1);
        this.starts = Arrays.copyOf(bounds, n);
        this.ends = n == 0 ? new long[0] : Arrays.copyOfRange(bounds, 1, bounds.length);
        this.recorded = new boolean[n];
        this.running = new ObjectDigest[n];
        this.fed = new long[n];
        this.values = new byte[n][];
        for (int s = 0; s < n; s++) {
            recorded[s] = fromRecordedCrc32c && isWholePiece(starts[s], ends[s]);
            if (ends[s] == starts[s]) {
                values[s] = ObjectDigest.of(algorithm).finish();
            }
        }
    }

    /**
     * The digest of {@code checksum}'s kind over an object cut into pieces as {@code layout} says, or null when
     * the algorithm is unknown ({@link ObjectDigest#supports}).
     */
    static IncrementalDigest of(ObjectChecksum checksum, PieceLayout layout) {
        if (!ObjectDigest.supports(checksum.algorithm())) {
            return null;
        }
        boolean crc = CrcCombine.of(checksum.algorithm()) != null;
        if (checksum.fullObject()) {
            return crc ? new CombinedCrc(checksum, layout) : new SequentialDigest(checksum, layout);
        }
        return new CompositeDigest(checksum, layout);
    }

    /** What S3 says the value is. */
    final ObjectChecksum expected() {
        return expected;
    }

    final String algorithm() {
        return algorithm;
    }

    final PieceLayout layout() {
        return layout;
    }

    final int segmentCount() {
        return starts.length;
    }

    final long start(int segment) {
        return starts[segment];
    }

    final long end(int segment) {
        return ends[segment];
    }

    /** Whether {@code segment} must be fed its bytes (false when a recorded CRC32C gives its value). */
    final boolean needsBytes(int segment) {
        return !recorded[segment] && ends[segment] > starts[segment];
    }

    /** The next bytes of {@code segment}, in order from its start. */
    final void update(int segment, ByteBuffer bytes) {
        if (running[segment] == null) {
            running[segment] = ObjectDigest.of(algorithm);
        }
        fed[segment] += bytes.remaining();
        running[segment].update(bytes);
        if (fed[segment] == ends[segment] - starts[segment]) {
            values[segment] = running[segment].finish();
            running[segment] = null;
        }
    }

    /** {@code segment} starts over from its first byte: some of its bytes were replaced. */
    final void restart(int segment) {
        running[segment] = null;
        fed[segment] = 0;
        if (ends[segment] > starts[segment]) {
            values[segment] = null;
        }
    }

    /** A piece landed with this CRC32C; a segment that is this piece takes it as its value. */
    final void pieceCompleted(int piece, int crc32c) {
        int s = segmentStartingAt(layout.offset(piece));
        if (s >= 0 && recorded[s]) {
            values[s] = new byte[] {(byte) (crc32c >>> 24), (byte) (crc32c >>> 16), (byte) (crc32c >>> 8), (byte) crc32c};
        }
    }

    /** A piece was forgotten (it is being replaced); a segment that took its recorded CRC32C loses it. */
    final void pieceForgotten(int piece) {
        int s = segmentStartingAt(layout.offset(piece));
        if (s >= 0 && recorded[s]) {
            values[s] = null;
        }
    }

    /** The segments overlapping bytes [from, to), as [first, end) indexes. */
    final int[] segmentsOverlapping(long from, long to) {
        int first = Arrays.binarySearch(ends, from);
        first = first >= 0 ? first + 1 : -first - 1;
        int last = Arrays.binarySearch(starts, to);
        last = last >= 0 ? last : -last - 1;
        return new int[] {first, Math.max(first, last)};
    }

    /** Whether every segment has its value. */
    final boolean isComplete() {
        for (byte[] v : values) {
            if (v == null) {
                return false;
            }
        }
        return true;
    }

    /** The checksum as S3 writes it (base64, or hex for an ETag; {@code -N} for a composite); once complete. */
    final String value() {
        if (!isComplete()) {
            throw new IllegalStateException("not every segment of the " + algorithm + " digest is in");
        }
        return fold(values);
    }

    /** Whether {@link #value()} is what S3 says. */
    final boolean matches() {
        return value().equals(expected.base64Value());
    }

    /** The checksum from every segment's digest, in order. */
    abstract String fold(byte[][] segmentValues);

    /** S3's text for a raw digest: hex for an ETag's MD5, base64 otherwise. */
    final String encode(byte[] raw) {
        return algorithm.equals("MD5") ? HexFormat.of().formatHex(raw) : Base64.getEncoder().encodeToString(raw);
    }

    /** Boundaries that cut [from, to) at every piece boundary inside it. */
    static List<Long> pieceCuts(PieceLayout layout, long from, long to) {
        List<Long> cuts = new ArrayList<>();
        cuts.add(from);
        long next = (from / layout.pieceSize() + 1) * layout.pieceSize();
        for (long b = next; b < to; b += layout.pieceSize()) {
            cuts.add(b);
        }
        if (to > from) {
            cuts.add(to);
        }
        return cuts;
    }

    static long[] toArray(List<Long> bounds) {
        return bounds.stream().mapToLong(Long::longValue).toArray();
    }

    static long toLong(byte[] bigEndian) {
        long v = 0;
        for (byte b : bigEndian) {
            v = (v << 8) | (b & 0xff);
        }
        return v;
    }

    static byte[] toBytes(long v, int width) {
        byte[] out = new byte[width];
        for (int i = 0; i < width; i++) {
            out[i] = (byte) (v >>> (8 * (width - 1 - i)));
        }
        return out;
    }

    private boolean isWholePiece(long start, long end) {
        if (!algorithm.equals("CRC32C") || end <= start || start % layout.pieceSize() != 0) {
            return false;
        }
        int piece = layout.pieceAt(start);
        return layout.offset(piece) + layout.length(piece) == end;
    }

    private int segmentStartingAt(long position) {
        int s = Arrays.binarySearch(starts, position);
        // Empty segments share a start with the next one; the non-empty one is the last of equal starts.
        if (s < 0) {
            return -1;
        }
        while (s + 1 < starts.length && starts[s + 1] == position) {
            s++;
        }
        return s;
    }
}
