package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletionException;

/**
 * The end-to-end check of an object in a store, and what it found. A fetch runs it incrementally, as the pieces
 * land ({@link ObjectVerification}); {@link #check} runs it at once over a store that is complete already.
 */
final class ObjectVerifier {

    private ObjectVerifier() {
    }

    /**
     * Whether S3's checksum or the ETag's MD5 was checked too ({@code checked}, false when only the pieces could
     * be), and, when every piece is as it arrived but the object is not what S3 says it is (some piece arrived
     * wrong), why.
     */
    record Result(boolean checked, String wholeObjectMismatch) {

        /**
         * Returns {@link #checked()}, or throws the whole-object mismatch.
         *
         * @throws BroadcastException.ChecksumMismatch naming the two checksums
         */
        boolean orThrow() {
            if (wholeObjectMismatch != null) {
                throw new BroadcastException.ChecksumMismatch(wholeObjectMismatch + ": fetch again");
            }
            return checked;
        }
    }

    /**
     * Checks a complete store against S3's checksum and, when {@code eTagToo} and the ETag is a digest
     * ({@link ObjectInfo#eTagDigest()}), against the ETag: a cluster node binds what peers sent to it. (An MD5
     * costs about 1.3 CPU-seconds per GB; the flat tree, which reads everything from S3, does not pay it.) Each
     * piece the check reads whole is checked against the CRC32C it arrived with.
     *
     * @throws BroadcastException.ChecksumMismatch naming a piece whose bytes on disk are not those that arrived
     */
    static Result check(PieceStore store, ObjectInfo object, boolean eTagToo) throws IOException {
        ObjectVerification v = ObjectVerification.start(store, object, eTagToo, Runnable::run);
        try {
            return v.result().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            throw e.getCause() instanceof RuntimeException r ? r : e;
        } finally {
            v.close();
        }
    }

    /** As {@link #check}, a whole-object mismatch thrown; returns {@link Result#checked()}. */
    static boolean verify(PieceStore store, ObjectInfo object, boolean eTagToo) throws IOException {
        return check(store, object, eTagToo).orThrow();
    }

    /** As {@link #verify(PieceStore, ObjectInfo, boolean)} without the ETag: the flat tree's check. */
    static boolean verify(PieceStore store, ObjectInfo object) throws IOException {
        return verify(store, object, false);
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
