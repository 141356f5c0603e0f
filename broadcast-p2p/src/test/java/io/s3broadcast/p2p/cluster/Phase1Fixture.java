package io.s3broadcast.p2p.cluster;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** Phase 1 for tests of the components that consult it: non-steal, the peers of a map, S3 reads that never end. */
final class Phase1Fixture {

    /** One node alone: pieces of 1 MiB. */
    static WorkSizing.Sizing sizing(int pieces) {
        return WorkSizing.computed(16).size(WorkSizing.Share.of(pieces, 1 << 20, 1));
    }

    static ShareFetcher fetcher(int pieces, Map<String, Peer> peers, ManualScheduler time) {
        PhaseOneRun run = new PhaseOneRun() {
            @Override
            public Set<String> peers() {
                return peers.keySet();
            }

            @Override
            public boolean send(String peer, PeerMessage msg) {
                return Peer.send(peers, peer, msg);
            }

            @Override
            public boolean peersOutOfWork() {
                return false;
            }

            @Override
            public void phase2Starts() {
            }

            @Override
            public boolean peersFetching() {
                return false;
            }

            @Override
            public void failed(Throwable error) {
                throw new AssertionError(error);
            }
        };
        return new ShareFetcher("self", ClusterPlan.of(Strategy.NON_STEAL), pieces, new Random(1), run,
                (queue, reads) -> new CompletableFuture<>(), time, time, time.ticker());
    }

    private Phase1Fixture() {
    }
}
