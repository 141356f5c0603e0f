package io.s3broadcast.internal;

import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fetch's end-to-end check, computed while the pieces land: S3's checksum of the object (full-object or
 * composite) and, for a cluster node, its ETag as a digest, each an {@link IncrementalDigest} fed by a
 * {@link PrefixHasher} that watches the {@link PieceStore}. {@link #result()} then waits only for what is left
 * to hash when the last piece is in, not for a read of the whole file.
 */
final class ObjectVerification {

    private static final Logger LOG = LoggerFactory.getLogger(ObjectVerification.class);

    private final ObjectInfo object;
    private final PieceStore store;
    private final IncrementalDigest eTag;
    private final IncrementalDigest s3;
    private final PrefixHasher hasher;

    private ObjectVerification(PieceStore store, ObjectInfo object, IncrementalDigest eTag, IncrementalDigest s3,
            Executor executor) {
        this.object = object;
        this.store = store;
        this.eTag = eTag;
        this.s3 = s3;
        List<IncrementalDigest> digests = new ArrayList<>(2);
        Optional.ofNullable(eTag).ifPresent(digests::add);
        Optional.ofNullable(s3).ifPresent(digests::add);
        FileChannel channel = store.channel();
        this.hasher = new PrefixHasher(store.layout(), digests, (position, dst) -> {
            while (dst.hasRemaining()) {
                if (channel.read(dst, position + dst.position()) < 0) {
                    throw new IOException("unexpected end of " + store.tempFile() + " at " + (position + dst.position()));
                }
            }
        }, executor, name(object));
    }

    /**
     * Starts watching {@code store} (pieces already in it count): checks S3's checksum when the object has one
     * this version knows, and the ETag as a digest too when {@code eTagToo} and the ETag is one
     * ({@link ObjectInfo#eTagDigest()}); hashing runs on {@code executor}.
     */
    static ObjectVerification start(PieceStore store, ObjectInfo object, boolean eTagToo, Executor executor) {
        Optional<ObjectChecksum> checksum = object.checksum().filter(c -> {
            boolean known = ObjectDigest.supports(c.algorithm());
            if (!known) {
                LOG.debug("{} has a {} checksum, which this version cannot check; checking pieces only",
                        name(object), c.algorithm());
            }
            return known;
        });
        IncrementalDigest eTag = eTagToo ? object.eTagDigest().map(c -> IncrementalDigest.of(c, store.layout()))
                .orElse(null) : null;
        IncrementalDigest s3 = checksum.map(c -> IncrementalDigest.of(c, store.layout())).orElse(null);
        ObjectVerification v = new ObjectVerification(store, object, eTag, s3, executor);
        store.observe(v.hasher);
        return v;
    }

    /**
     * Completes, once every piece is in and hashed, with whether a whole-object digest was checked and, if the
     * object is not what S3 says it is, why. Fails with {@link io.s3broadcast.BroadcastException.ChecksumMismatch}
     * when a piece on disk is not what arrived. After pieces are replaced, call again for the new result.
     */
    CompletableFuture<ObjectVerifier.Result> result() {
        return hasher.whenDone().thenApply(v -> compare());
    }

    /** Bytes still to hash before {@link #result()} can complete. */
    long bytesLeft() {
        return hasher.bytesLeft();
    }

    /** Stops watching the store and hashing. */
    void close() {
        store.stopObserving(hasher);
        hasher.close();
    }

    private ObjectVerifier.Result compare() {
        if (eTag != null) {
            String mismatch = partsMismatch(eTag);
            if (mismatch != null || !eTag.matches()) {
                return new ObjectVerifier.Result(true, String.format("%s on disk has %s %s, but its ETag is %s",
                        name(object), eTag.expected().fullObject() ? "MD5" : "MD5 of part MD5s",
                        mismatch != null ? mismatch : eTag.value(), object.eTag()));
            }
        }
        if (s3 == null) {
            return new ObjectVerifier.Result(eTag != null, null);
        }
        ObjectChecksum c = s3.expected();
        String mismatch = partsMismatch(s3);
        if (mismatch != null || !s3.matches()) {
            return new ObjectVerifier.Result(true, String.format("%s (ETag %s) on disk has %s %s %s, but S3 says %s",
                    name(object), object.eTag(), c.fullObject() ? "full-object" : "composite", c.algorithm(),
                    mismatch != null ? mismatch : s3.value(), c.base64Value()));
        }
        return new ObjectVerifier.Result(true, null);
    }

    /** Why a composite digest's parts cannot be the object's (they do not add up to its size), or null. */
    private String partsMismatch(IncrementalDigest d) {
        long sum = d.expected().partSizes().stream().mapToLong(Long::longValue).sum();
        if (d.expected().fullObject() || sum == object.size()) {
            return null;
        }
        return "no value (its parts add up to " + sum + " bytes, not " + object.size() + ")";
    }

    static String name(ObjectInfo object) {
        return "s3://" + object.bucket() + "/" + object.key();
    }
}
