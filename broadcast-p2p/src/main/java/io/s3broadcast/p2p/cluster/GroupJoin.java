package io.s3broadcast.p2p.cluster;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.p2p.protocol.PeerPipeline;
import io.s3broadcast.registry.GroupId;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.registry.NodeRegistry;
import io.s3broadcast.registry.RegistryConfig;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.PieceLayout;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run joining its group, on one of the cluster's blocking threads: opens the group's registry ({@link
 * RegistrySession}), finds the group secret, registers this node, makes the run's protocol pipeline so the router
 * may hand it inbound connections, and waits for the expected nodes; the run then begins with the members found.
 * Any failure, an {@link Error} too (a broken ServiceLoader file), fails the run: the fetch must end.
 */
final class GroupJoin {

    private static final Logger LOG = LoggerFactory.getLogger(GroupJoin.class);

    /** What joining tells the run. */
    interface Run {
        /** The run is stopping: joining stops too. */
        boolean closing();

        /**
         * Registered as {@code self}, with {@code pipeline} for its connections: the run takes inbound connections
         * from now on. Returns false, and takes none, when the run stopped meanwhile.
         */
        boolean joined(String self, PeerPipeline pipeline);

        /** The expected nodes are there ({@code late}: the group was complete before this node came); any thread. */
        void members(List<NodeInfo> members, boolean late);

        void fail(Throwable error);
    }

    private GroupJoin() {
    }

    /** Joins the group {@code group} as {@code config} says (blocking); {@code run} hears how it went. */
    static void join(PeerCluster cluster, RegistrySession registry, GroupId group, PieceLayout layout, Run run) {
        ClusterConfig config = cluster.config();
        try {
            RegistryConfig rc = RegistryConfig.builder(group).s3Client(cluster.registryClient()).build();
            if (!registry.start(NodeRegistry.open(config.registry(), rc)) || run.closing()) {
                registry.registry().close();
                return;
            }
            byte[] secret = RegistrySession.secret(config.security(), registry.registry(), config.registry());
            RegistrySession.Registered me = registry.register(new NodeInfo(config.nodeId(),
                    RegistrySession.advertisedHost(config.advertisedHost(), cluster.listenAddress()), cluster.port()),
                    config.expectedNodes());
            String self = me.self().nodeId();
            PeerPipeline pipeline = PeerChannels.pipeline(config.security(), secret, group.hash(), self, cluster.port(),
                    layout, config.limits().handshakeTimeout());
            if (!run.joined(self, pipeline)) {
                // Stopped while joining: the run may have finished before the registry was set.
                registry.registry().close();
                return;
            }
            LOG.debug("{} joined {} as {} ({} members before)", self, group, me.self(), me.membersBefore());
            registry.awaitMembers(config.expectedNodes(), config.expectTimeout()).whenComplete((m, e) -> {
                if (e != null) {
                    run.fail(e);
                } else {
                    run.members(m.members(), me.late());
                    markBegun(cluster, registry);
                }
            });
        } catch (RuntimeException | Error e) {
            run.fail(new BroadcastException("cannot join the node registry " + config.registry() + " for " + group
                    + ": " + e, e));
        }
    }

    /** The run begins: the registry records it on a blocking thread, so nodes that come later are late. */
    private static void markBegun(PeerCluster cluster, RegistrySession registry) {
        try {
            cluster.blocking().execute(registry::markBegun);
        } catch (RuntimeException e) {
            LOG.debug("not marking the run begun: {}", e.toString()); // the cluster is closing
        }
    }
}
