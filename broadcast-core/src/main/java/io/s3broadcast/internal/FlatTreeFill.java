package io.s3broadcast.internal;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceListener;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.WorkList;
import io.s3broadcast.spi.cluster.WorkSizing;
import java.util.concurrent.CompletableFuture;

/**
 * The flat tree's plan for one fetch's store: the whole object on this node alone, cut into works and ranged GETs
 * sized for its S3 connections ({@link WorkSizing} with N = 1), less the pieces a resumed fetch already holds; then
 * read from S3. Made and started on the fetch's executor; the source stores the pieces on its own threads.
 */
final class FlatTreeFill {

    private final PieceStore store;
    private final WorkSizing.Sizing sizing;
    private final WorkList queue;

    FlatTreeFill(PieceStore store, WorkSizing sizing) {
        this.store = store;
        ClusterPlan plan = ClusterPlan.of(Strategy.FLAT_TREE);
        int pieces = store.layout().pieceCount();
        this.sizing = sizing.size(WorkSizing.Share.of(pieces, store.layout().pieceSize(), plan.sharingNodes(1)));
        this.queue = new WorkList(pieces, plan.share(pieces, 1, 0, this.sizing));
        Bitfield resumed = store.bitfield();
        for (int p = resumed.nextSet(0); p >= 0; p = resumed.nextSet(p + 1)) {
            queue.pieceStored(p);
        }
    }

    /** Reads every piece still missing from S3 into the store; cancelling the future stops the reads. */
    CompletableFuture<Void> start(ObjectInfo info, ObjectSource source, SourceListener listener) {
        return source.fetch(info, queue, store, listener, sizing.reads());
    }
}
