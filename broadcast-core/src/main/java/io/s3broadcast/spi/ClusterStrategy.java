package io.s3broadcast.spi;

/**
 * Runs the cluster strategies ({@code NON_STEAL}, {@code STEAL}, {@code OVERLAP}) for one {@code Broadcast}:
 * owns its peer server and threads, released by {@link #close()}.
 */
public interface ClusterStrategy extends AutoCloseable {

    /** Starts a node's part of a broadcast. Never throws: failures complete {@link ClusterRun#completion()}. */
    ClusterRun start(ClusterTask task);

    /** Stops every run still under way. */
    @Override
    void close();
}
