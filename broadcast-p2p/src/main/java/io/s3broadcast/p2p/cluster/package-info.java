/**
 * The cluster strategies (NON_STEAL, STEAL, OVERLAP) over Netty: the {@code ClusterStrategyProvider}
 * registered for {@link java.util.ServiceLoader}, one peer server per {@code Broadcast} whose connections
 * are routed to runs by the group in the peer's handshake, and per fetch a run that joins the registry,
 * reads its share from S3, steals works, exchanges pieces with its peers and lingers to serve them. The
 * decisions themselves (shares, work lists, stealing, piece selection, choking) are
 * {@code io.s3broadcast.spi.cluster}'s; this package feeds them what it hears and sends what they
 * decide. Each rule of the run is one small class (the table in {@code docs/architecture.md}, "The run's
 * components"), unit-tested on fake time. {@link io.s3broadcast.p2p.cluster.NettyClusterProvider#withPeerChannelHandler}
 * is the one seam a bench may use from outside: a handler put first in every peer channel of one {@code Broadcast}.
 * See {@code docs/architecture.md}, "How a cluster fetch flows".
 */
package io.s3broadcast.p2p.cluster;
