/**
 * The ZooKeeper registry ({@code zk://host:port[,host:port]/path}), through Apache Curator: each node is an
 * ephemeral znode {@code <path>/<group hash>/<node id>} holding its {@link io.s3broadcast.registry.NodeEntry},
 * so a node whose session ends disappears, and it is written again when a new session starts.
 * Found by {@link io.s3broadcast.registry.NodeRegistry#open} through {@link
 * io.s3broadcast.zookeeper.ZooKeeperRegistry.Provider}.
 */
package io.s3broadcast.zookeeper;
