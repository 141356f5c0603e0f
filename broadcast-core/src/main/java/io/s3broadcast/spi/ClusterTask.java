package io.s3broadcast.spi;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.WorkSizing;
import java.util.Objects;

/**
 * One node's part of one cluster broadcast: fill {@code store} with every piece of {@code object}, fetching
 * this node's share through {@code source} and the rest from peers.
 *
 * @param listener hears bytes read from S3 and every piece stored, from S3 or from a peer
 * @param sizing how this node's share is cut into ranges and works, and over how many S3 connections
 * @param spotCheckBudget the extra S3 bytes the whole cluster may read to spot-check pieces taken from peers, for
 *        an object without a digest S3 vouches for (0: none); the run spends this node's part of it as pieces
 *        arrive, and {@link ClusterRun#spotCheck} what is left after the last one
 */
public record ClusterTask(Strategy strategy, ObjectInfo object, PieceStore store, ObjectSource source,
        SourceListener listener, WorkSizing sizing, long spotCheckBudget) {

    /** Connections the default sizing of {@link #ClusterTask(Strategy, ObjectInfo, PieceStore, ObjectSource, SourceListener)} may use. */
    public static final int DEFAULT_CONNECTIONS = 16;

    public ClusterTask {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(object, "object");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(sizing, "sizing");
        if (spotCheckBudget < 0) {
            throw new IllegalArgumentException("spotCheckBudget " + spotCheckBudget + " < 0");
        }
        if (!strategy.isCluster()) {
            throw new IllegalArgumentException(strategy + " is not a cluster strategy");
        }
    }

    /** A task with no spot check as pieces arrive ({@link ClusterRun#spotCheck} does all of it). */
    public ClusterTask(Strategy strategy, ObjectInfo object, PieceStore store, ObjectSource source,
            SourceListener listener, WorkSizing sizing) {
        this(strategy, object, store, source, listener, sizing, 0);
    }

    /** A task with the computed sizing over at most {@link #DEFAULT_CONNECTIONS} connections (the source may allow fewer). */
    public ClusterTask(Strategy strategy, ObjectInfo object, PieceStore store, ObjectSource source,
            SourceListener listener) {
        this(strategy, object, store, source, listener, WorkSizing.computed(DEFAULT_CONNECTIONS), 0);
    }
}
