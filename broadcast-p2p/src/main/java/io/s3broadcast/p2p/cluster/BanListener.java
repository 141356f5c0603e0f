package io.s3broadcast.p2p.cluster;

/**
 * Hears every ban a node's runs decide: {@code node} banned {@code peer}. Injected through {@link PeerCluster};
 * a broadcast uses {@link #NONE}, tests listen.
 */
@FunctionalInterface
interface BanListener {

    BanListener NONE = (node, peer) -> { };

    /** Called on the run's loop: must not block. */
    void banned(String node, String peer);
}
