package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.spi.cluster.ClusterPlan;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When phase 2 opens, and when phase 1 ended. */
class PhaseGateTest {

    private boolean ownDone;
    private boolean peersOut;
    private int starts;
    private final ShareFetcher.Run run = new ShareFetcher.Run() {
        @Override
        public Set<String> peers() {
            return Set.of();
        }

        @Override
        public boolean send(String peer, PeerMessage msg) {
            return false;
        }

        @Override
        public boolean peersOutOfWork() {
            return peersOut;
        }

        @Override
        public void phase2Starts() {
            starts++;
        }

        @Override
        public boolean peersFetching() {
            return false;
        }

        @Override
        public void failed(Throwable error) {
        }
    };

    private PhaseGate gate(Strategy strategy) {
        return new PhaseGate("a", ClusterPlan.of(strategy), () -> ownDone, run);
    }

    @Test
    void phaseTwoOpensOnceWhenThisNodeAndEveryPeerAreOutOfWork() {
        PhaseGate gate = gate(Strategy.STEAL);
        ownDone = true;
        gate.check();
        assertThat(starts).isZero();
        assertThat(gate.phase2Allowed()).isFalse();
        peersOut = true;
        gate.check();
        gate.check();
        assertThat(starts).isEqualTo(1);
        assertThat(gate.phase2Allowed()).isTrue();
    }

    @Test
    void overlapRequestsFromPeersBeforePhaseOneIsOver() {
        assertThat(gate(Strategy.OVERLAP).phase2Allowed()).isTrue();
    }

    @Test
    void theFirstEndOfPhaseOneCounts() {
        PhaseGate gate = gate(Strategy.STEAL);
        gate.ownPhase1Done(100);
        gate.ownPhase1Done(200);
        assertThat(gate.phase1End(300)).isEqualTo(100);
        PhaseGate never = gate(Strategy.STEAL);
        assertThat(never.phase1End(300)).isEqualTo(300);
        assertThat(never.phase1End(400)).isEqualTo(300);
    }
}
