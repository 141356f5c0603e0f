package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.ClusterTask;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceListener;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;

/**
 * Pieces read again from S3, the one source a peer cannot forge, into a scratch file beside the store (same
 * layout, sparse, removed on {@link #close()}): their digests settle disputes, expose a lying peer, and their
 * bytes replace wrong ones in the store ({@link #copyInto}). Bytes read count as bytes from S3.
 */
final class SourceCheck implements Disputes.Reread {

    private final PieceStore scratch;

    private SourceCheck(PieceStore scratch) {
        this.scratch = scratch;
    }

    /** Fetches {@code pieces} of the task's object from S3; completes once all are in the scratch file. */
    static CompletableFuture<SourceCheck> fetch(ClusterTask task, BitSet pieces) {
        PieceStore main = task.store();
        PieceStore scratch;
        try {
            Path dest = main.destination();
            scratch = PieceStore.create(dest.resolveSibling(dest.getFileName() + ".check"), main.layout());
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new IOException("cannot create a scratch file beside "
                    + main.destination() + " to read pieces again from S3: " + e, e));
        }
        scratch.keepDigests();
        SourceCheck check = new SourceCheck(scratch);
        SourceListener counting = new SourceListener() {
            @Override
            public void bytesReceived(long bytes) {
                task.listener().bytesReceived(bytes);
            }
        };
        CompletableFuture<Void> f;
        try {
            f = task.source().fetch(task.object(), new RunQueue(pieces), scratch, counting);
        } catch (RuntimeException e) {
            scratch.close();
            return CompletableFuture.failedFuture(e);
        }
        return f.handle((v, e) -> {
            if (e != null) {
                scratch.close();
                throw e instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(e);
            }
            return check;
        });
    }

    /** The SHA-256 of {@code piece} as S3 has it; it must have been fetched. */
    @Override
    public byte[] digest(int piece) {
        return scratch.sha256(piece);
    }

    /**
     * Writes S3's bytes of {@code piece} into {@code store} and records them there (the piece is forgotten
     * first if present, so it is not served half-written). Returns true when the piece was not present before.
     */
    @Override
    public boolean copyInto(PieceStore store, int piece) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(store.layout().length(piece));
        scratch.readPiece(piece, buf);
        buf.flip();
        boolean wasPresent = store.forget(piece);
        store.write(store.layout().offset(piece), buf);
        store.completePiece(piece, scratch.crc32c(piece), scratch.sha256(piece));
        return !wasPresent;
    }

    @Override
    public void close() {
        scratch.close();
    }

    /** Hands out the runs of consecutive pieces in a set, once. */
    private static final class RunQueue implements PieceQueue {
        private final Deque<PieceRun> runs = new ArrayDeque<>();

        RunQueue(BitSet pieces) {
            for (int p = pieces.nextSetBit(0); p >= 0; ) {
                int end = pieces.nextClearBit(p);
                runs.add(new PieceRun(p, end));
                p = pieces.nextSetBit(end);
            }
        }

        @Override
        public synchronized PieceRun poll(int maxPieces) {
            PieceRun r = runs.poll();
            if (r == null || r.count() <= maxPieces) {
                return r;
            }
            runs.addFirst(new PieceRun(r.first() + maxPieces, r.end()));
            return new PieceRun(r.first(), r.first() + maxPieces);
        }
    }
}
