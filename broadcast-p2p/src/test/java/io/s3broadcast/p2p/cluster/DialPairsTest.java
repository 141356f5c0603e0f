package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which node of a pair dials the other. */
class DialPairsTest {

    private static final String SELF = "b";

    @Test
    void ofEachPairExactlyOneDialsAndEachNodeDialsAboutHalfTheOthers() {
        int mine = 0;
        for (int i = 0; i < 1000; i++) {
            String other = "node-" + i;
            assertThat(DialPairs.dials(SELF, other)).isNotEqualTo(DialPairs.dials(other, SELF));
            mine += DialPairs.dials(SELF, other) ? 1 : 0;
        }
        assertThat(mine).isBetween(400, 600);
        assertThat(DialPairs.dials(SELF, SELF)).isFalse();
    }
}
