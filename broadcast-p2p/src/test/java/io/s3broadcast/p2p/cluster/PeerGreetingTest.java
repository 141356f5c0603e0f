package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.p2p.protocol.BitfieldMessage;
import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.p2p.protocol.WorksLeft;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** What a new peer hears first, and in which order; fake links, fake S3. */
class PeerGreetingTest {

    private static final int PIECES = 4;
    private static final List<PieceRun> SHARE = List.of(new PieceRun(0, 2), new PieceRun(2, 4));

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final Bitfield announced = new Bitfield(PIECES);
    private final AtomicBoolean complete = new AtomicBoolean();
    private final List<Integer> frameLimits = new ArrayList<>();
    private final ShareFetcher phase1 = Phase1Fixture.fetcher(PIECES, peers, time);
    private final PeerGreeting greeting = new PeerGreeting(() -> announced, phase1, max -> {
        frameLimits.add(max);
        return List.of(new Digests(0, new byte[Digests.DIGEST_BYTES], new byte[Digests.MAC_BYTES]));
    }, complete::get);

    @Test
    void beforePhaseOneBeginsAPeerHearsTheBitfieldThenOurDigestsWithinItsFrameLimit() {
        Peer a = FakeLink.peer("a", PIECES);
        FakeLink.of(a).maxFrameLength = 4096;
        greeting.greet(a.link);
        assertThat(FakeLink.of(a).types()).containsExactly(MessageType.BITFIELD, MessageType.DIGESTS);
        assertThat(frameLimits).containsExactly(4096);
        assertThat(FakeLink.of(a).flushes).isEqualTo(1);
    }

    @Test
    void theWorksLeftCountOnlyThePiecesAnnouncedTheBitfieldHolds() {
        phase1.begin(SHARE, Phase1Fixture.sizing(PIECES), new Bitfield(PIECES));
        phase1.pieceStored(0, true);
        phase1.pieceStored(1, true);
        announced.setRange(0, 2);
        Peer a = FakeLink.peer("a", PIECES);
        greeting.greet(a.link);
        assertThat(FakeLink.of(a).types())
                .containsExactly(MessageType.BITFIELD, MessageType.DIGESTS, MessageType.WORKS_LEFT);
        assertThat(((BitfieldMessage) FakeLink.of(a).sent.get(0)).toBitfield().cardinality()).isEqualTo(2);
        assertThat(FakeLink.of(a).sent.get(2)).isEqualTo(new WorksLeft(1));
    }

    @Test
    void aPieceOnDiskWhoseStoredHasNotRunIsNeitherInTheBitfieldNorCountedOffTheWorksLeft() {
        // The store completed pieces 0 and 1, but their stored() is still queued on the loop: they are not
        // announced, so the greeting neither shows them nor says the work that holds them is done. (Counted off
        // before their HAVEs, peers saw no works left and no holder, and read them again as orphans.)
        phase1.begin(SHARE, Phase1Fixture.sizing(PIECES), new Bitfield(PIECES));
        Peer a = FakeLink.peer("a", PIECES);
        greeting.greet(a.link);
        assertThat(((BitfieldMessage) FakeLink.of(a).sent.get(0)).toBitfield().cardinality()).isZero();
        assertThat(FakeLink.of(a).sent.get(2)).isEqualTo(new WorksLeft(2));
        assertThat(phase1.workList().remaining().works()).isEqualTo(2);
    }

    @Test
    void aCompleteNodeSaysItIsDoneLast() {
        announced.setRange(0, PIECES);
        phase1.begin(SHARE, Phase1Fixture.sizing(PIECES), announced);
        complete.set(true);
        Peer a = FakeLink.peer("a", PIECES);
        greeting.greet(a.link);
        assertThat(FakeLink.of(a).types()).containsExactly(MessageType.BITFIELD, MessageType.DIGESTS,
                MessageType.WORKS_LEFT, MessageType.DONE);
        assertThat(FakeLink.of(a).sent.get(2)).isEqualTo(new WorksLeft(0));
    }
}
