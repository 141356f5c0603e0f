package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.cluster.HaveBatcher;
import io.s3broadcast.spi.cluster.PieceSelector;
import io.s3broadcast.spi.cluster.RequestScheduler;
import io.s3broadcast.spi.cluster.SourcePieces;
import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.Cancel;
import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.Have;
import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A stored piece: announced (its {@code HAVE} batched with the others of the loop's turn), duplicates cancelled,
 * interest updated, completion; fake peers, fake time.
 */
class PieceStoredTest {

    private static final int PIECES = 2;

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final RequestScheduler requests = RequestScheduler.builder(PIECES)
            .selector(PieceSelector.randomizedRarest(new Random(3))).source(SourcePieces.NONE).maxRequestsPerPeer(4)
            .build();
    private final PieceExchange exchange = new PieceExchange(peers, requests, time.ticker(), Duration.ofSeconds(1),
            () -> true, () -> true, piece -> true, (p, what) -> { }, (p, what) -> { }, () -> "self");
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicBoolean checksIdle = new AtomicBoolean(true);
    private final AtomicInteger completed = new AtomicInteger();
    private final List<Integer> ownReads = new ArrayList<>();
    private final PieceStored stored = new PieceStored(peers, requests, Phase1Fixture.fetcher(PIECES, peers, time),
            exchange, closing::get, piece -> {
                ownReads.add(piece);
                return new byte[Digests.DIGEST_BYTES];
            }, (piece, own) -> new Digests(piece, own, new byte[Digests.MAC_BYTES]), checksIdle::get,
            this::complete, new HaveBatcher(time, Duration.ZERO, pieces -> PieceStored.announce(peers, pieces)));
    /** Per completion, the HAVEs the peers had been sent by then. */
    private final List<Long> havesAtCompletion = new ArrayList<>();

    private void complete() {
        completed.incrementAndGet();
        havesAtCompletion.add(peers.values().stream().mapToLong(p -> FakeLink.of(p).sent.stream()
                .filter(m -> m.type() == MessageType.HAVE).count()).sum());
    }

    /**
     * A connected peer holding {@code pieces}, which chokes this node (nothing is requested of it); what it was sent
     * so far is forgotten.
     */
    private Peer peer(String id, int... pieces) {
        Peer p = FakeLink.peer(id, PIECES);
        peers.put(id, p);
        exchange.choked(p);
        exchange.bitfield(p, BitfieldMessage.of(PIECES, i -> Arrays.stream(pieces).anyMatch(x -> x == i)));
        FakeLink.of(p).clear();
        return p;
    }

    @Test
    void aPieceFromS3IsVouchedForThenAnnouncedToEveryPeer() {
        Peer a = peer("a");
        Peer b = peer("b", 1);
        stored.stored(0, null);
        assertThat(ownReads).containsExactly(0);
        assertThat(FakeLink.of(a).types()).as("HAVE waits for the end of the turn").containsExactly(MessageType.DIGESTS);
        assertThat(FakeLink.of(a).flushes).isZero();
        time.runPending();
        assertThat(FakeLink.of(a).types()).containsExactly(MessageType.DIGESTS, MessageType.HAVE);
        assertThat(FakeLink.of(a).flushes).isEqualTo(1);
        assertThat(FakeLink.of(b).types()).containsExactly(MessageType.DIGESTS, MessageType.HAVE);
        assertThat(FakeLink.of(b).sent.get(1)).isEqualTo(new Have(0));
    }

    @Test
    void aPieceFromAPeerIsAnnouncedWithoutDigestsAndItsDuplicateRequestIsCancelled() {
        Peer a = peer("a", 0, 1);
        Peer b = peer("b", 0, 1);
        exchange.unchoked(a);
        exchange.unchoked(b);
        assertThat(b.asked.get(0)).as("endgame: asked of both").isTrue();
        FakeLink.of(a).clear();
        FakeLink.of(b).clear();

        stored.stored(0, "a");
        time.runPending();
        assertThat(ownReads).isEmpty();
        assertThat(FakeLink.of(b).sent).contains(new Cancel(0));
        assertThat(b.asked.get(0)).isFalse();
        assertThat(FakeLink.of(a).types()).containsExactly(MessageType.HAVE);
    }

    @Test
    void aPeerWithNothingMoreThisNodeWantsHearsNotInterested() {
        Peer a = peer("a", 0);
        assertThat(a.amInterested).isTrue();
        stored.stored(0, null);
        time.runPending();
        assertThat(FakeLink.of(a).types())
                .containsExactly(MessageType.DIGESTS, MessageType.NOT_INTERESTED, MessageType.HAVE);
        assertThat(FakeLink.of(a).flushes).isEqualTo(1);
        assertThat(a.amInterested).isFalse();
    }

    @Test
    void piecesStoredInOneTurnAreAnnouncedWithOneFlushPerPeer() {
        Peer a = peer("a");
        Peer b = peer("b");
        stored.stored(0, "a");
        stored.stored(1, "b");
        time.runPending();
        assertThat(FakeLink.of(a).sent).containsExactly(new Have(0), new Have(1));
        assertThat(FakeLink.of(b).sent).containsExactly(new Have(0), new Have(1));
        assertThat(FakeLink.of(a).flushes).isEqualTo(1);
        assertThat(FakeLink.of(b).flushes).isEqualTo(1);
    }

    @Test
    void completionIsNotAnnouncedBeforeTheLastHave() {
        peer("a");
        stored.stored(0, null);
        stored.stored(1, null);
        assertThat(havesAtCompletion).as("both HAVEs went out before the run completed (and sent DONE)")
                .containsExactly(2L);
    }

    @Test
    void aHaveWaitingIsSentByFlushHaves() {
        Peer a = peer("a");
        stored.stored(0, "a");
        stored.flushHaves();
        assertThat(FakeLink.of(a).sent).containsExactly(new Have(0));
        time.runPending();
        assertThat(FakeLink.of(a).sent).as("the turn's end finds nothing left").containsExactly(new Have(0));
    }

    @Test
    void nothingWaitingIsSentOnceClosed() {
        Peer a = peer("a");
        stored.stored(0, "a");
        stored.close();
        time.runPending();
        assertThat(FakeLink.of(a).sent).isEmpty();
    }

    @Test
    void theLastPieceCompletesTheRun() {
        stored.stored(0, null);
        assertThat(completed.get()).isZero();
        stored.stored(1, null);
        assertThat(completed.get()).isEqualTo(1);
    }

    @Test
    void notWhilePiecesAreUnderACheckFromS3() {
        checksIdle.set(false);
        stored.stored(0, null);
        stored.stored(1, null);
        assertThat(completed.get()).as("the end of the checks completes it").isZero();
    }

    @Test
    void nothingIsAnnouncedOnceTheRunIsClosing() {
        Peer a = peer("a");
        closing.set(true);
        stored.stored(0, null);
        assertThat(FakeLink.of(a).sent).isEmpty();
        assertThat(ownReads).isEmpty();
    }

    @Test
    void aPieceIsAnnouncedWhenItsStoredRuns() {
        assertThat(stored.announced().get(0)).as("in the store perhaps, but its stored() has not run").isFalse();
        stored.stored(0, null);
        assertThat(stored.announced().get(0)).isTrue();
        assertThat(stored.announced().get(1)).isFalse();
    }
}
