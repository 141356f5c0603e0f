package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceRun;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class EndgameTest {

    private static final int PIECES = 20;

    private final FakeTicker ticker = new FakeTicker();
    private final BitSet have = new BitSet(PIECES);
    private final Availability availability = new Availability(PIECES);
    private final OutstandingRequests outstanding = new OutstandingRequests(PIECES, ticker, Duration.ofSeconds(5));

    private Endgame endgame(SourcePieces source) {
        return new Endgame(PIECES, have, outstanding, source, PieceSelector.rarest(), availability);
    }

    private void holdEverything(String... peers) {
        for (String peer : peers) {
            availability.bitfield(peer, Bitfield.full(PIECES));
        }
    }

    /** {@code peer} is asked for and delivers the pieces {@code [from, to)}, now held. */
    private void delivers(String peer, int from, int to) {
        for (int p = from; p < to; p++) {
            outstanding.add(peer, p);
            outstanding.stored(p, peer);
            have.set(p);
        }
    }

    @Test
    void holdsWhileEveryMissingPieceIsAskedOfAPeerOrInFlightFromS3() {
        WorkList s3 = new WorkList(PIECES, List.of(new PieceRun(15, 20)));
        Endgame e = endgame(s3);
        have.set(0, 10);
        assertThat(e.holds()).isFalse(); // 10-19 missing, nobody asked
        for (int p = 10; p < 15; p++) {
            outstanding.add("x", p);
        }
        assertThat(e.holds()).isFalse(); // 15-19 queued for S3, not taken yet
        assertThat(s3.poll(5)).isEqualTo(new PieceRun(15, 20));
        assertThat(e.holds()).isTrue();
        outstanding.remove("x", 12);
        assertThat(e.holds()).isFalse();
        have.set(0, PIECES);
        assertThat(e.holds()).isFalse(); // nothing missing
    }

    @Test
    void fewestRequestsFirstThenTheSlowestRequesterThenSelectorOrder() {
        Endgame e = endgame(SourcePieces.NONE);
        holdEverything("d", "slow", "slower", "u", "v");
        delivers("d", 4, 12); // 8 pieces in the second that follows
        delivers("slow", 12, 14); // 2
        delivers("slower", 14, 15); // 1
        have.set(15, PIECES);
        ticker.advance(Duration.ofSeconds(1));
        outstanding.add("u", 0);
        outstanding.add("v", 0); // asked twice
        outstanding.add("slow", 1);
        outstanding.add("slower", 2);
        outstanding.add("u", 3); // of a peer that delivered nothing yet: at most risk

        assertThat(e.duplicates("d", availability.pieces("d"), 10)).containsExactly(3, 2, 1, 0);
        assertThat(e.duplicates("d", availability.pieces("d"), 2)).containsExactly(3, 2);
        outstanding.add("d", 3);
        assertThat(e.duplicates("d", availability.pieces("d"), 10)).containsExactly(2, 1, 0); // never twice
    }

    @Test
    void noDuplicateOfAPieceAskedOfAPeerMoreThanHalfAsFast() {
        Endgame e = endgame(SourcePieces.NONE);
        holdEverything("d", "slow", "even", "u", "w");
        delivers("d", 4, 6); // 2 pieces a second
        delivers("slow", 6, 7); // 1
        delivers("even", 7, 9); // 2
        have.set(3);
        have.set(9, PIECES); // 0-2 missing
        ticker.advance(Duration.ofSeconds(1));
        outstanding.add("slow", 0);
        outstanding.add("even", 1);
        outstanding.add("u", 2);
        assertThat(outstanding.measured("w")).isFalse();

        // d is twice as fast as slow, as fast as even; u delivered nothing, so its piece is asked again by anyone.
        assertThat(e.duplicates("d", availability.pieces("d"), 10)).containsExactly(2, 0);
        assertThat(e.duplicates("w", availability.pieces("w"), 10)).containsExactly(2);
    }
}
