package io.s3broadcast.p2p.cluster;

import io.netty.channel.ChannelHandler;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterStrategy;
import io.s3broadcast.spi.ClusterStrategyProvider;
import java.util.Objects;
import java.util.function.Supplier;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Makes the Netty cluster strategy. Registered with {@link java.util.ServiceLoader}, which finds the plain one; an
 * application (in practice a bench) that wants to add to every peer channel passes one made by {@link
 * #withPeerChannelHandler} to {@code Broadcast.Builder.clusterStrategy}.
 */
public final class NettyClusterProvider implements ClusterStrategyProvider {

    private final Supplier<? extends ChannelHandler> peerChannelHandler;

    /** The provider {@link java.util.ServiceLoader} finds: peer channels as the protocol needs them, nothing else. */
    public NettyClusterProvider() {
        this.peerChannelHandler = null;
    }

    private NettyClusterProvider(Supplier<? extends ChannelHandler> peerChannelHandler) {
        this.peerChannelHandler = Objects.requireNonNull(peerChannelHandler, "peerChannelHandler");
    }

    /**
     * A provider whose every peer channel, dialled or accepted, gets a new handler from {@code handler} first in
     * its pipeline, below TLS and the protocol: it sees the raw bytes. A bench running several nodes in one JVM
     * gives each node's {@code Broadcast} one of these to emulate that node's link (rate limits on its peer
     * traffic).
     */
    public static NettyClusterProvider withPeerChannelHandler(Supplier<? extends ChannelHandler> handler) {
        return new NettyClusterProvider(handler);
    }

    @Override
    public ClusterStrategy create(ClusterConfig config, S3AsyncClient registryClient) {
        return PeerCluster.start(config, registryClient, peerChannelHandler);
    }
}
