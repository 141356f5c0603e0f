package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.cluster.PieceSelector;
import io.s3broadcast.spi.cluster.RequestScheduler;
import io.s3broadcast.spi.cluster.SourcePieces;
import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A peer's DONE and WORKS_LEFT checked against the pieces it announced; fake peers, fake time. */
class PeerClaimsTest {

    private static final int PIECES = 4;

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final List<String> misbehaved = new ArrayList<>();
    private final AtomicInteger doneTaken = new AtomicInteger();
    private final RequestScheduler requests = RequestScheduler.builder(PIECES)
            .selector(PieceSelector.randomizedRarest(new Random(3))).source(SourcePieces.NONE).maxRequestsPerPeer(4)
            .build();
    private final PieceExchange exchange = new PieceExchange(peers, requests, time.ticker(), Duration.ofSeconds(1),
            () -> true, () -> true, piece -> true, (p, what) -> misbehaved.add(p.id + " " + what),
            (p, what) -> misbehaved.add(p.id + " " + what), () -> "self");
    private final OrphanRule orphans = new OrphanRule(() -> "self", PIECES, peers,
            new Membership(time.ticker(), Membership.CONNECT_GRACE_NANOS), time.ticker(), () -> false,
            () -> new Bitfield(PIECES), piece -> true, () -> 1, works -> { });
    private final PeerClaims claims = new PeerClaims(PIECES, exchange, Phase1Fixture.fetcher(PIECES, peers, time),
            orphans, (p, what) -> misbehaved.add(p.id + " " + what), doneTaken::incrementAndGet);

    private Peer peer(String id, int holds) {
        Peer p = FakeLink.peer(id, PIECES);
        peers.put(id, p);
        exchange.bitfield(p, BitfieldMessage.of(PIECES, i -> i < holds));
        return p;
    }

    @Test
    void aDoneFromAPeerHoldingEveryPieceIsTaken() {
        Peer a = peer("a", PIECES);
        a.worksLeft = 2;
        claims.done(a);
        assertThat(misbehaved).isEmpty();
        assertThat(a.done).isTrue();
        assertThat(a.worksLeft).isZero();
        assertThat(doneTaken.get()).isEqualTo(1);
    }

    @Test
    void aDoneFromAPeerThatLacksPiecesIsMisbehaviour() {
        Peer a = peer("a", 3);
        claims.done(a);
        assertThat(misbehaved).containsExactly("a sent DONE holding 3 of 4 pieces");
        assertThat(a.done).isFalse();
        assertThat(doneTaken.get()).isZero();
    }

    @Test
    void moreWorksLeftThanPiecesMissingIsMisbehaviour() {
        Peer a = peer("a", 2);
        claims.worksLeft(a, new WorksLeft(3));
        assertThat(misbehaved).containsExactly("a claims 3 works left while it lacks only 2 pieces");
        assertThat(a.worksLeft).isEqualTo(-1);
        claims.worksLeft(a, new WorksLeft(2));
        assertThat(a.worksLeft).isEqualTo(2);
        assertThat(misbehaved).hasSize(1);
    }
}
