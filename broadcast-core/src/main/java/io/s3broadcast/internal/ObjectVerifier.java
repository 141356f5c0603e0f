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
import java.util.Iterator;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the assembled file back once, before it is committed, and checks that the bytes on disk are the
 * bytes that arrived: every piece against the CRC32C recorded as it landed, and the whole object against
 * S3's own checksum when S3 has one (full-object, or composite over the multipart upload's parts).
 */
final class ObjectVerifier {

    private static final Logger LOG = LoggerFactory.getLogger(ObjectVerifier.class);
    private static final int CHUNK = 1 << 20;

    private ObjectVerifier() {
    }

    /**
     * Returns true when S3's checksum was checked too, false when only the pieces could be.
     *
     * @throws BroadcastException.ChecksumMismatch naming the piece or the two checksums
     */
    static boolean verify(PieceStore store, ObjectInfo object) throws IOException {
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

        ObjectDigest whole = checksum.map(c -> ObjectDigest.of(c.algorithm())).orElse(null);
        Iterator<Long> parts = checksum.filter(c -> !c.fullObject()).map(c -> c.partSizes().iterator()).orElse(null);
        ByteArrayOutputStream partDigests = new ByteArrayOutputStream();
        long partLeft = parts != null && parts.hasNext() ? parts.next() : Long.MAX_VALUE;

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
                if (whole != null) {
                    if (parts == null) {
                        whole.update(buf);
                    } else {
                        // Feed the part digest up to each part boundary, then start the next part.
                        while (buf.hasRemaining()) {
                            int take = (int) Math.min(buf.remaining(), partLeft);
                            ByteBuffer slice = buf.slice().limit(take);
                            whole.update(slice);
                            buf.position(buf.position() + take);
                            partLeft -= take;
                            if (partLeft == 0) {
                                partDigests.writeBytes(whole.finish());
                                whole = ObjectDigest.of(checksum.get().algorithm());
                                partLeft = parts.hasNext() ? parts.next() : Long.MAX_VALUE;
                            }
                        }
                    }
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
        if (checksum.isEmpty()) {
            return false;
        }
        ObjectChecksum c = checksum.get();
        String actual;
        if (c.fullObject()) {
            actual = Base64.getEncoder().encodeToString(whole.finish());
        } else {
            ObjectDigest ofParts = ObjectDigest.of(c.algorithm());
            ofParts.update(ByteBuffer.wrap(partDigests.toByteArray()));
            actual = Base64.getEncoder().encodeToString(ofParts.finish()) + "-" + c.partSizes().size();
        }
        if (!actual.equals(c.base64Value())) {
            throw new BroadcastException.ChecksumMismatch(String.format(
                    "s3://%s/%s (ETag %s) on disk has %s %s %s, but S3 says %s: fetch again", object.bucket(),
                    object.key(), object.eTag(), c.fullObject() ? "full-object" : "composite", c.algorithm(), actual,
                    c.base64Value()));
        }
        return true;
    }
}
