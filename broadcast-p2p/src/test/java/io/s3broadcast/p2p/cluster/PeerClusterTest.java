package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PeerClusterTest {

    @Test
    void aBroadcastOnTwoCoresOrFewerHasOneEventLoopAndOnMoreTwo() {
        assertThat(PeerCluster.eventLoopThreads(1)).isEqualTo(1);
        assertThat(PeerCluster.eventLoopThreads(2)).isEqualTo(1);
        assertThat(PeerCluster.eventLoopThreads(3)).isEqualTo(PeerCluster.EVENT_LOOP_THREADS).isEqualTo(2);
        assertThat(PeerCluster.eventLoopThreads(64)).isEqualTo(2);
    }
}
