package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The report of a phase 2 that stands still, on fake time with fake peers. */
class ExchangeStillReportTest {

    private static final int PIECES = 8;

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final Bitfield have = new Bitfield(PIECES);
    private final AtomicBoolean exchanging = new AtomicBoolean(true);
    private final BitSet unvouched = new BitSet();
    private final BitSet fromS3 = new BitSet();
    private final ExchangeStillReport report = new ExchangeStillReport(peers, exchanging::get, have::cardinality,
            have::copy, piece -> !unvouched.get(piece), fromS3::get, time.ticker(), () -> "me");

    private Peer peer(String id, int... pieces) {
        Peer p = FakeLink.peer(id, PIECES);
        for (int piece : pieces) {
            p.has.set(piece);
        }
        peers.put(id, p);
        return p;
    }

    private void holdAllBut(int... missing) {
        BitSet lacking = new BitSet();
        for (int p : missing) {
            lacking.set(p);
        }
        for (int p = lacking.nextClearBit(0); p < PIECES; p = lacking.nextClearBit(p + 1)) {
            have.set(p);
        }
    }

    private String after(Duration d) {
        time.advance(d);
        return report.check();
    }

    @Test
    void aPhaseTwoThatStoresNothingForASecondIsDescribedOnce() {
        holdAllBut(5, 6, 7);
        Peer a = peer("a", 5, 6, 7);
        peer("b", 5);
        a.peerChoking = false;
        a.askedAt.put(5, time.ticker().read());
        unvouched.set(6);
        fromS3.set(7);
        assertThat(report.check()).isNull();
        assertThat(after(Duration.ofMillis(900))).as("not yet").isNull();
        String said = after(Duration.ofMillis(100));
        assertThat(said)
                .startsWith("me: no piece stored for 1000 ms, missing 3 of 8 pieces; 1 of 2 peers choke this node;")
                .contains("piece 5: vouched, 2 holders [a, b], asked of [a 1000 ms ago]")
                .contains("piece 6: NOT vouched, 1 holders [a], asked of none")
                .contains("piece 7: vouched, due from S3, 1 holders [a], asked of none");
        assertThat(after(Duration.ofSeconds(5))).as("once per stand-still").isNull();
    }

    @Test
    void aStoredPieceStartsTheWaitAgain() {
        holdAllBut(6, 7);
        peer("a", 6, 7);
        report.check();
        time.advance(Duration.ofMillis(1_500));
        have.set(6);
        assertThat(report.check()).isNull();
        assertThat(after(Duration.ofMillis(700))).as("0.7 s since the last piece").isNull();
        assertThat(after(Duration.ofMillis(300))).contains("no piece stored for 1000 ms, missing 1 of 8 pieces")
                .contains("piece 7:").doesNotContain("piece 6:");
    }

    @Test
    void nothingIsSaidBeforePhaseTwoOrOnceEveryPieceIsHeld() {
        holdAllBut(7);
        exchanging.set(false);
        report.check();
        assertThat(after(Duration.ofSeconds(3))).as("no requests may go out: waiting is not standing still").isNull();
        exchanging.set(true);
        assertThat(after(Duration.ofMillis(900))).isNull();
        have.set(7);
        assertThat(after(Duration.ofSeconds(3))).as("complete").isNull();
        assertThat(after(Duration.ofSeconds(3))).isNull();
    }
}
