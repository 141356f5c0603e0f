package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.cluster.ChokeScheduler.Decisions;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PiecesHeldCapTest {

    @Test
    void eightPeersPerPieceHeldReadAtEveryCall() {
        int[] held = {0};
        PiecesHeldCap cap = new PiecesHeldCap(() -> held[0]);
        assertThat(cap.getAsInt()).isZero();
        held[0] = 1;
        assertThat(cap.getAsInt()).isEqualTo(PiecesHeldCap.UNCHOKED_PER_PIECE).isEqualTo(8);
        held[0] = 3;
        assertThat(cap.getAsInt()).isEqualTo(24);
    }

    @Test
    void manyPiecesSaturateInsteadOfOverflowing() {
        assertThat(new PiecesHeldCap(() -> Integer.MAX_VALUE / 2).getAsInt()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void theCooperativePolicyReadsTheCapAtEachDecision() {
        int[] held = {0};
        ChokePolicy coop = ChokePolicy.cooperative(16, 30, 0, new Random(1), new PiecesHeldCap(() -> held[0]));
        Map<String, ChokePolicy.Candidate> peers = new HashMap<>();
        for (int i = 0; i < 12; i++) {
            peers.put("p" + (char) ('a' + i), new ChokePolicy.Candidate(true, 0, 0));
        }
        // No piece held: the cap counts as 1, the optimistic unchoke alone.
        assertThat(coop.decide(0, peers).unchoke()).hasSize(1);
        held[0] = 1;
        assertThat(coop.decide(1, peers).unchoke()).hasSize(7);
        held[0] = 2;
        Decisions d = coop.decide(2, peers);
        assertThat(d.unchoke()).hasSize(4);
        assertThat(peers.keySet()).noneMatch(coop::isChoking);
    }
}
