package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ClusterRun.Outcome;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a run's outcome reports, counted as it goes, on fake time. */
class OutcomeTallyTest {

    private final ManualScheduler time = new ManualScheduler();
    private final OutcomeTally tally = new OutcomeTally(time.ticker().read());

    @Test
    void phasesRunFromTheStartToPhaseOnesEndAndFromThereToTheLastPiece() {
        time.advance(Duration.ofMillis(1_500));
        long phase1End = time.ticker().read();
        time.advance(Duration.ofMillis(700));

        Outcome outcome = tally.outcome(phase1End, time.ticker().read(), 3);

        assertThat(outcome.phase1()).isEqualTo(Duration.ofMillis(1_500));
        assertThat(outcome.phase2()).isEqualTo(Duration.ofMillis(700));
        assertThat(outcome.piecesStolen()).isEqualTo(3);
    }

    @Test
    void bytesComeFromPiecesKeptAndPeersFromEitherWay() {
        tally.fromPeer("a", 1_000);
        tally.fromPeer("a", 500);
        tally.exchangedWith().add("b"); // served a piece by this node
        tally.exchangedWith().add("a");

        Outcome outcome = tally.outcome(time.ticker().read(), time.ticker().read(), 0);

        assertThat(outcome.bytesFromPeers()).isEqualTo(1_500);
        assertThat(outcome.peers()).as("a once, though it gave and took").isEqualTo(2);
    }

    @Test
    void anEmptyObjectsRunTookNoTimeAndNoPeer() {
        assertThat(OutcomeTally.EMPTY).isEqualTo(new Outcome(0, Duration.ZERO, Duration.ZERO, 0, 0));
    }
}
