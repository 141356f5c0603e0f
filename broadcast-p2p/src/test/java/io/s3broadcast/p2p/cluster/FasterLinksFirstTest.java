package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FasterLinksFirstTest {

    private static final int PICKS = 30_000;
    private final FasterLinksFirst picks = new FasterLinksFirst(new Random(7));

    private double share(String id, List<String> candidates) {
        int n = 0;
        for (int i = 0; i < PICKS; i++) {
            if (picks.pick(candidates).equals(id)) {
                n++;
            }
        }
        return (double) n / PICKS;
    }

    @Test
    void withNothingMeasuredEveryCandidateIsAsLikely() {
        List<String> candidates = List.of("a", "b", "c");

        assertThat(share("a", candidates)).isCloseTo(1 / 3.0, within(0.02));
    }

    @Test
    void theFastestMeasuredLinkWeighsTwiceAnUnmeasuredOne() {
        picks.measured("fast", 4e6);
        picks.measured("half", 2e6);
        List<String> candidates = List.of("fast", "half", "new");

        // Weights 2, 1.5 and 1 of 4.5.
        assertThat(share("fast", candidates)).isCloseTo(2 / 4.5, within(0.02));
        assertThat(share("new", candidates)).isCloseTo(1 / 4.5, within(0.02));
    }

    @Test
    void anUnmeasuredLossLeavesTheWeightsAsTheyWere() {
        picks.measured("a", 0);

        assertThat(share("a", List.of("a", "b"))).isCloseTo(0.5, within(0.02));
    }

    @Test
    void theOnlyCandidateIsPicked() {
        assertThat(picks.pick(List.of("only"))).isEqualTo("only");
    }
}
