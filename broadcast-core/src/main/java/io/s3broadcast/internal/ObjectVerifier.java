package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the assembled file back once, before it is committed, and checks that the bytes on disk are the
 * bytes that arrived: every piece against the CRC32C recorded as it landed, and the whole object against
 * S3's own checksum when S3 has one (full-object, or composite over the multipart upload's parts) and
 * against its ETag when that is a digest (see {@link ObjectInfo#eTagDigest()}).
 */
final class ObjectVerifier {

    private static final Logger LOG = LoggerFactory.getLogger(ObjectVerifier.class);
    private static final int CHUNK = 1 << 20;

    private ObjectVerifier() {
    }

    /**
     * Returns true when S3's checksum or the ETag's MD5 was checked too, false when only the pieces could be.
     *
     * @throws BroadcastException.ChecksumMismatch naming the piece or the two checksums
     */
    static boolean verify(PieceStore store, ObjectInfo object) throws IOException {
        return verify(store, object, false);
    }

    /**
     * As {@link #verify(PieceStore, ObjectInfo)}, and against the object's ETag too when {@code eTag} and the
     * ETag is a digest ({@link ObjectInfo#eTagDigest()}): a cluster node binds what peers sent to it. (An MD5
     * costs about 1.3 CPU-seconds per GB; the flat tree, which reads everything from S3, does not pay it.)
     */
    static boolean verify(PieceStore store, ObjectInfo object, boolean eTag) throws IOException {
        Result r = check(store, object, eTag);
        if (r.wholeObjectMismatch() != null) {
            throw new BroadcastException.ChecksumMismatch(r.wholeObjectMismatch() + ": fetch again");
        }
        return r.checked();
    }

    /**
     * The outcome of {@link #check}: {@code checked} as {@link #verify} returns it, and, when every piece is as
     * it arrived but the object is not what S3 says it is (some piece arrived wrong), why.
     */
    record Result(boolean checked, String wholeObjectMismatch) {
    }

    /**
     * As {@link #verify}, but a whole-object mismatch is returned, not thrown, so a cluster node can repair.
     *
     * @throws BroadcastException.ChecksumMismatch naming a piece whose bytes on disk are not those that arrived
     */
    static Result check(PieceStore store, ObjectInfo object, boolean eTagToo) throws IOException {
        Optional<ObjectChecksum> checksum = object.checksum().filter(c -> {
            boolean known = ObjectDigest.supports(c.algorithm());
            if (!known) {
                LOG.debug("s3://{}/{} has a {} checksum, which this version cannot check; checking pieces only",
                        object.bucket(), object.key(), c.algorithm());
            }
            return known;
        });
        PieceLayout layout = store.layout();
        FileChannel channel = store.channel();
        ByteBuffer buf = ByteBuffer.allocateDirect(CHUNK);
        CRC32C pieceCrc = new CRC32C();
        Running eTag = eTagToo ? object.eTagDigest().map(Running::new).orElse(null) : null;
        Running s3 = checksum.map(Running::new).orElse(null);

        for (int piece = 0; piece < layout.pieceCount(); piece++) {
            pieceCrc.reset();
            long pos = layout.offset(piece);
            long end = pos + layout.length(piece);
            while (pos < end) {
                buf.clear().limit((int) Math.min(CHUNK, end - pos));
                while (buf.hasRemaining()) {
                    int n = channel.read(buf, pos + buf.position());
                    if (n < 0) {
                        throw new IOException("unexpected end of " + store.tempFile() + " at " + (pos + buf.position()));
                    }
                }
                buf.flip();
                pieceCrc.update(buf.duplicate());
                if (eTag != null) {
                    eTag.update(buf.duplicate());
                }
                if (s3 != null) {
                    s3.update(buf.duplicate());
                }
                pos += buf.limit();
            }
            int expected = store.crc32c(piece);
            int actual = (int) pieceCrc.getValue();
            if (expected != actual) {
                throw new BroadcastException.ChecksumMismatch(String.format(
                        "piece %d (bytes %d-%d) of s3://%s/%s on disk has CRC32C %08x, but %08x arrived; the disk or"
                                + " the file was changed under us: fetch again", piece, layout.offset(piece),
                        layout.offset(piece) + layout.length(piece) - 1, object.bucket(), object.key(), actual, expected));
            }
        }
        if (eTag != null) {
            String actual = eTag.finish(HexFormat.of()::formatHex);
            if (!actual.equals(eTag.checksum.base64Value())) {
                return new Result(true, String.format("s3://%s/%s on disk has %s %s, but its ETag is %s", object.bucket(),
                        object.key(), eTag.checksum.fullObject() ? "MD5" : "MD5 of part MD5s", actual, object.eTag()));
            }
        }
        if (s3 == null) {
            return new Result(eTag != null, null);
        }
        ObjectChecksum c = s3.checksum;
        String actual = s3.finish(Base64.getEncoder()::encodeToString);
        if (!actual.equals(c.base64Value())) {
            return new Result(true, String.format(
                    "s3://%s/%s (ETag %s) on disk has %s %s %s, but S3 says %s", object.bucket(),
                    object.key(), object.eTag(), c.fullObject() ? "full-object" : "composite", c.algorithm(), actual,
                    c.base64Value()));
        }
        return new Result(true, null);
    }

    /**
     * One whole-object digest fed the file in order: of the whole byte stream, or (composite) of each part up
     * to its boundary, then of the parts' digests concatenated, {@code -N} appended.
     */
    private static final class Running {
        final ObjectChecksum checksum;
        private final Iterator<Long> parts;
        private final ByteArrayOutputStream partDigests = new ByteArrayOutputStream();
        private ObjectDigest current;
        private long partLeft;

        Running(ObjectChecksum checksum) {
            this.checksum = checksum;
            this.current = ObjectDigest.of(checksum.algorithm());
            this.parts = checksum.fullObject() ? null : checksum.partSizes().iterator();
            this.partLeft = parts != null && parts.hasNext() ? parts.next() : Long.MAX_VALUE;
        }

        void update(ByteBuffer buf) {
            if (parts == null) {
                current.update(buf);
                return;
            }
            while (buf.hasRemaining()) {
                int take = (int) Math.min(buf.remaining(), partLeft);
                ByteBuffer slice = buf.slice().limit(take);
                current.update(slice);
                buf.position(buf.position() + take);
                partLeft -= take;
                if (partLeft == 0) {
                    partDigests.writeBytes(current.finish());
                    current = ObjectDigest.of(checksum.algorithm());
                    partLeft = parts.hasNext() ? parts.next() : Long.MAX_VALUE;
                }
            }
        }

        String finish(java.util.function.Function<byte[], String> encode) {
            if (parts == null) {
                return encode.apply(current.finish());
            }
            ObjectDigest ofParts = ObjectDigest.of(checksum.algorithm());
            ofParts.update(ByteBuffer.wrap(partDigests.toByteArray()));
            return encode.apply(ofParts.finish()) + "-" + checksum.partSizes().size();
        }
    }

    /**
     * Whether {@code object} has a digest a peer cannot forge: its ETag (an MD5, or an MD5 of part MD5s), or a
     * SHA-1 or SHA-256 checksum.
     * A CRC-type checksum is checked too, but a member who knows the data can craft junk with the same CRC.
     */
    static boolean hasUnforgeableDigest(ObjectInfo object) {
        return object.eTagDigest().isPresent() || object.checksum()
                .map(c -> c.algorithm().equalsIgnoreCase("SHA1") || c.algorithm().equalsIgnoreCase("SHA256"))
                .orElse(false);
    }
}
