package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.ClusterPlan;
import org.junit.jupiter.api.Test;

/** When phase 2 opens, and when phase 1 ended. */
class PhaseGateTest {

    private boolean ownDone;
    private final ShareFetcherTest.FakeRun run = new ShareFetcherTest.FakeRun();

    private PhaseGate gate(Strategy strategy) {
        return new PhaseGate("a", ClusterPlan.of(strategy), () -> ownDone, run);
    }

    @Test
    void phaseTwoOpensOnceWhenThisNodeAndEveryPeerAreOutOfWork() {
        PhaseGate gate = gate(Strategy.STEAL);
        run.peerWorks.put("b", 2);
        ownDone = true;
        gate.check();
        assertThat(run.phase2Starts).isZero();
        assertThat(gate.phase2Allowed()).isFalse();
        run.peerWorks.put("b", 0);
        gate.check();
        gate.check();
        assertThat(run.phase2Starts).isEqualTo(1);
        assertThat(gate.phase2Allowed()).isTrue();
    }

    @Test
    void nothingOpensWhileThisNodeHasWorkOfItsOwn() {
        PhaseGate gate = gate(Strategy.STEAL);
        gate.check();
        assertThat(gate.overEverywhere()).isFalse();
        assertThat(run.phase2Starts).isZero();
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
