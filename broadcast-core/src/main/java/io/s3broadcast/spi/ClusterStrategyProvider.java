package io.s3broadcast.spi;

/**
 * Makes {@link ClusterStrategy}s; found with {@link java.util.ServiceLoader}. The {@code broadcast-p2p}
 * module registers the Netty one.
 */
public interface ClusterStrategyProvider {

    /** @param registryClient an S3 client an {@code s3://} registry may use, or null */
    ClusterStrategy create(ClusterConfig config, software.amazon.awssdk.services.s3.S3AsyncClient registryClient);
}
