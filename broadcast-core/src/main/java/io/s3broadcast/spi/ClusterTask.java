package io.s3broadcast.spi;

import io.s3broadcast.Strategy;
import java.util.Objects;

/**
 * One node's part of one cluster broadcast: fill {@code store} with every piece of {@code object}, fetching
 * this node's share through {@code source} and the rest from peers.
 *
 * @param listener hears bytes read from S3 and every piece stored, from S3 or from a peer
 */
public record ClusterTask(Strategy strategy, ObjectInfo object, PieceStore store, ObjectSource source,
        SourceListener listener) {

    public ClusterTask {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(object, "object");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(listener, "listener");
        if (!strategy.isCluster()) {
            throw new IllegalArgumentException(strategy + " is not a cluster strategy");
        }
    }
}
