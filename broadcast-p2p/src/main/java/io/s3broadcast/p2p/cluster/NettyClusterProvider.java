package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterStrategy;
import io.s3broadcast.spi.ClusterStrategyProvider;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/** Registers the Netty cluster strategy with {@link java.util.ServiceLoader}. */
public final class NettyClusterProvider implements ClusterStrategyProvider {

    @Override
    public ClusterStrategy create(ClusterConfig config, S3AsyncClient registryClient) {
        return PeerCluster.start(config, registryClient);
    }
}
