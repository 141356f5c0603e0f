package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a node leaving mid-run may say goodbye, on fake time. */
class LeavingTest {

    private static final int PIECES = 8;

    private final ManualScheduler time = new ManualScheduler();

    private static Bitfield pieces(int... ps) {
        Bitfield b = new Bitfield(PIECES);
        for (int p : ps) {
            b.set(p);
        }
        return b;
    }

    private static Peer peer(String id, int... has) {
        Peer p = new Peer(id, new FakeLink(), PIECES);
        for (int h : has) {
            p.has.set(h);
        }
        return p;
    }

    @Test
    void itStaysWhileItsWorksAreNotHandedOn() {
        Leaving leaving = new Leaving(time.ticker());
        assertThat(leaving.mayGo(false, pieces(), List.of(peer("b")))).isEqualTo(-1);
    }

    @Test
    void itStaysWhileItHoldsAPieceNoPeerHoldsThenGoesOnceAPeerHasIt() {
        Leaving leaving = new Leaving(time.ticker());
        Peer b = peer("b", 0);
        Peer c = peer("c", 1);
        assertThat(leaving.mayGo(true, pieces(0, 1, 2), List.of(b, c))).isEqualTo(-1);
        c.has.set(2); // c took piece 2 from this node
        assertThat(leaving.mayGo(true, pieces(0, 1, 2), List.of(b, c))).isZero();
    }

    @Test
    void aDonePeerHoldsEveryPiece() {
        Peer done = peer("b");
        done.done = true;
        assertThat(new Leaving(time.ticker()).mayGo(true, pieces(3, 4), List.of(done))).isZero();
    }

    @Test
    void itGoesAtTheLimitWhateverIsLeftAndSaysHowManyPiecesOnlyItHeld() {
        Leaving leaving = new Leaving(time.ticker());
        List<Peer> peers = List.of(peer("b", 0));
        time.advance(Duration.ofNanos(Leaving.LIMIT_NANOS - 1_000_000));
        assertThat(leaving.mayGo(false, pieces(0, 5, 6), peers)).isEqualTo(-1);
        time.advance(Duration.ofMillis(1));
        assertThat(leaving.mayGo(false, pieces(0, 5, 6), peers)).isEqualTo(2);
    }

    @Test
    void withoutPeersItGoesAtOnce() {
        assertThat(new Leaving(time.ticker()).mayGo(false, pieces(1), List.of())).isZero();
    }
}
