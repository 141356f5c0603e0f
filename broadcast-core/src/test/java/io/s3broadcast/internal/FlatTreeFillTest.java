package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.RangeReads;
import io.s3broadcast.spi.SourceListener;
import io.s3broadcast.spi.cluster.WorkSizing;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The flat tree's plan: the whole object for one node, sized for N = 1, less what a resumed fetch holds. */
class FlatTreeFillTest {

    private static final int PIECE = 1024;

    @TempDir
    Path dir;

    private final PieceLayout layout = new PieceLayout(11 * PIECE - 100, PIECE);
    private final ObjectInfo info = new ObjectInfo("b", "k", layout.objectSize(), "\"e\"", Optional.empty());
    private final List<WorkSizing.Share> shares = new ArrayList<>();
    /** Two GETs at once, of three pieces each, in works of three pieces. */
    private final WorkSizing sizing = share -> {
        shares.add(share);
        return new WorkSizing.Sizing(2, 3, 3, share.pieceSize());
    };
    private final RecordingSource source = new RecordingSource();

    @Test
    void theWholeObjectIsReadFromS3SizedForThisNodeAlone() throws Exception {
        try (PieceStore store = PieceStore.create(dir.resolve("o"), layout)) {
            CompletableFuture<Void> fetch = new FlatTreeFill(store, sizing).start(info, source, SourceListener.NONE);

            assertThat(fetch).isSameAs(source.fetch);
            assertThat(shares).containsExactly(WorkSizing.Share.of(11, PIECE, 1));
            assertThat(source.reads).isEqualTo(new WorkSizing.Sizing(2, 3, 3, PIECE).reads());
            assertThat(source.store).isSameAs(store);
            assertThat(source.object).isSameAs(info);
            assertThat(handedOut(source.queue)).containsExactlyElementsOf(IntStream.range(0, 11).boxed().toList());
        }
    }

    @Test
    void piecesAResumedFetchHoldsAreNotReadAgain() throws Exception {
        try (PieceStore store = PieceStore.create(dir.resolve("o"), layout)) {
            for (int p : new int[] {0, 2, 5, 10}) {
                store.write(layout.offset(p), ByteBuffer.allocate(layout.length(p)));
                store.completePiece(p, 0);
            }
            new FlatTreeFill(store, sizing).start(info, source, SourceListener.NONE);

            assertThat(handedOut(source.queue)).containsExactly(1, 3, 4, 6, 7, 8, 9);
        }
    }

    /** Every piece the queue hands out, in order, as a fetch with room for many pieces per GET takes them. */
    private static List<Integer> handedOut(PieceQueue queue) {
        List<Integer> pieces = new ArrayList<>();
        for (PieceRun run = queue.poll(64); run != null; run = queue.poll(64)) {
            IntStream.range(run.first(), run.end()).forEach(pieces::add);
        }
        return pieces;
    }

    /** A source that only records what it was asked to fetch. */
    private static final class RecordingSource implements ObjectSource {
        final CompletableFuture<Void> fetch = new CompletableFuture<>();
        ObjectInfo object;
        PieceQueue queue;
        PieceStore store;
        RangeReads reads;

        @Override
        public CompletableFuture<ObjectInfo> head(String bucket, String key) {
            throw new AssertionError("the plan reads no HEAD");
        }

        @Override
        public CompletableFuture<Void> fetch(ObjectInfo object, PieceQueue pieces, PieceStore store,
                SourceListener listener) {
            throw new AssertionError("the flat tree tells the source how to read");
        }

        @Override
        public CompletableFuture<Void> fetch(ObjectInfo object, PieceQueue pieces, PieceStore store,
                SourceListener listener, RangeReads reads) {
            this.object = object;
            this.queue = pieces;
            this.store = store;
            this.reads = reads;
            return fetch;
        }

        @Override
        public void close() {
        }
    }
}
