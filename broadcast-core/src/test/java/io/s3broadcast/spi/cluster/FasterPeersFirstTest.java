package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.Bitfield;
import java.time.Duration;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

class FasterPeersFirstTest {

    private static final int PIECES = 20;

    private final FakeTicker ticker = new FakeTicker();
    private final Availability availability = new Availability(PIECES);
    private final OutstandingRequests outstanding = new OutstandingRequests(PIECES, ticker, Duration.ofSeconds(5));
    private final FasterPeersFirst rule = new FasterPeersFirst(PIECES, outstanding, PieceSelector.rarest(),
            availability);

    private static Bitfield bits(int... pieces) {
        Bitfield b = new Bitfield(PIECES);
        for (int p : pieces) {
            b.set(p);
        }
        return b;
    }

    private static BitSet set(int from, int to) {
        BitSet b = new BitSet(PIECES);
        b.set(from, to);
        return b;
    }

    /** {@code peer} is asked for and delivers the pieces {@code [from, to)}. */
    private void delivers(String peer, int from, int to) {
        for (int p = from; p < to; p++) {
            outstanding.add(peer, p);
            outstanding.stored(p, peer);
        }
    }

    @Test
    void withoutMeasuredRatesPiecesComeInSelectorOrder() {
        availability.bitfield("slow", bits(0, 1, 2, 3));
        availability.bitfield("fast", bits(0, 1));
        // Rarest first: 2 and 3 are held by one peer, 0 and 1 by two.
        assertThat(rule.select("slow", set(0, 4), 4)).containsExactly(2, 3, 0, 1);
    }

    @Test
    void aSlowPeerIsAskedFirstForThePiecesNoFasterPeerHolds() {
        availability.bitfield("slow", bits(0, 1, 2, 3, 4, 5));
        availability.bitfield("fast", bits(0, 1, 2, 3, 4));
        availability.bitfield("even", bits(0, 1, 2, 3, 4, 5));
        delivers("slow", 10, 12); // 2 pieces in the second that follows
        delivers("even", 12, 14); // 2: not faster
        delivers("fast", 14, 18); // 4: twice as fast
        ticker.advance(Duration.ofSeconds(1));

        // 5 only slow and even hold; 0-4 fast holds too, left to it (then in selector order: rarest first).
        assertThat(rule.select("slow", set(0, 6), 3)).containsExactly(5, 0, 1);
        assertThat(rule.select("slow", set(0, 6), 1)).containsExactly(5);
        // fast has no faster peer: plain selector order.
        assertThat(rule.select("fast", set(0, 5), 2)).containsExactly(0, 1);
    }

    @Test
    void aPeerNotMeasuredYetSeesNoFasterPeer() {
        availability.bitfield("new", bits(0, 1));
        availability.bitfield("fast", bits(0));
        delivers("fast", 10, 14);
        ticker.advance(Duration.ofSeconds(1));
        assertThat(rule.select("new", set(0, 2), 2)).containsExactly(1, 0);
        outstanding.add("new", 19);
        assertThat(rule.select("new", set(0, 2), 2)).containsExactly(1, 0); // asked, but nothing delivered yet
    }
}
