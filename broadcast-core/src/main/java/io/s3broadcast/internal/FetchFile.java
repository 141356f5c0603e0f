package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One fetch's temporary file, from its creation beside the destination to its end: the {@link ResumableStore}
 * that holds the pieces and the {@link ObjectVerification} that hashes them as they land. It ends published at
 * the destination ({@link #publish}) or stopped, kept for a later fetch or removed ({@link #stop}), and is closed
 * once no cluster run serves peers from it ({@link #closeAfter}). Called on the fetch's executor, and to stop it
 * from the thread of a caller that cancels the fetch.
 */
final class FetchFile {

    private final ObjectInfo info;
    private final ResumableStore resumable;
    private final ObjectVerification verification;

    private FetchFile(ObjectInfo info, ResumableStore resumable, ObjectVerification verification) {
        this.info = info;
        this.resumable = resumable;
        this.verification = verification;
    }

    /**
     * The file for {@code info} beside {@code destination}, resuming from what an interrupted fetch of this object
     * stored there, its end-to-end check started; a cluster fetch ({@code cluster}) keeps each piece's SHA-256 and
     * checks the ETag as a digest too. The hashing and the journal run on {@code executor}.
     *
     * @throws BroadcastException.DestinationUnusable when the file cannot be created
     */
    static FetchFile open(Path destination, ObjectInfo info, PieceLayout layout, boolean cluster, Executor executor) {
        ResumableStore resumable;
        try {
            // Under a name of its own, resuming from what an interrupted fetch of this object stored there.
            resumable = ResumableStore.open(destination, info, layout, cluster, executor);
        } catch (IOException e) {
            throw Destinations.unusable("cannot create a temporary file beside " + destination + " (" + e
                    + "): choose a writable destination for " + ObjectVerification.name(info), e);
        }
        try {
            // The end-to-end check runs as the pieces land; a cluster node binds what peers sent to the ETag too.
            return new FetchFile(info, resumable, ObjectVerification.start(resumable.store(), info, cluster, executor));
        } catch (RuntimeException e) {
            // The fetch fails with it; what the store holds is kept or removed as for any failure.
            resumable.stopped(e);
            resumable.store().close();
            throw e;
        }
    }

    PieceStore store() {
        return resumable.store();
    }

    /** Bytes the end-to-end check has still to hash. */
    long bytesLeftToHash() {
        return verification.bytesLeft();
    }

    /**
     * The end-to-end check's result once it has hashed what is left. It is only awaited when every piece is in
     * the store: the hashing finishes only then, so a piece dropped (by a repair that could not write it back)
     * fails the fetch here, naming the piece, instead of leaving the wait open.
     */
    CompletableFuture<ObjectVerifier.Result> verified() {
        PieceStore store = store();
        if (!store.isComplete()) {
            int missing = store.bitfield().nextClear(0);
            return CompletableFuture.failedFuture(new BroadcastException(ObjectVerification.name(info) + ": piece "
                    + missing + " of " + store.layout().pieceCount() + " is missing from " + store.tempFile()
                    + " after the fetch and its checks (a repair dropped it and could not write it back);"
                    + " fetch again"));
        }
        return verification.result();
    }

    /**
     * Puts the file in place once its check passed: fsync, atomic rename, fsync of the directory; then the journal
     * goes and the record says what the destination holds. The store stays open for {@link #closeAfter}.
     */
    Path publish() throws IOException {
        verification.close();
        Path path = store().commit();
        resumable.committed();
        FetchRecord.write(path, info);
        return path;
    }

    /** The fetch failed with {@code error}: the check stops, and the file is kept for a later fetch or removed. */
    void stop(Throwable error) {
        verification.close();
        resumable.stopped(error);
    }

    /** Closes the store, or has it closed when {@code run} (null: none) no longer lingers to serve peers from it. */
    void closeAfter(ClusterRun run) {
        PieceStore s = store();
        if (run == null) {
            s.close();
        } else {
            run.finished().whenComplete((v, e) -> s.close());
        }
    }
}
