package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** When a node of a bounded overlay is cut off from what it misses, on fake time. */
class StrandedTest {

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final AtomicBoolean bounded = new AtomicBoolean(true);
    private final AtomicBoolean waitsForPeers = new AtomicBoolean(true);
    private final Set<String> interesting = new HashSet<>();
    private final Stranded stranded = new Stranded(peers, bounded::get, waitsForPeers::get, interesting::contains,
            time.ticker(), () -> "self");

    StrandedTest() {
        peer("a");
        peer("b");
    }

    private Peer peer(String id) {
        Peer p = FakeLink.peer(id, 4);
        p.bitfieldReceived = true;
        peers.put(id, p);
        return p;
    }

    private void advance(long millis) {
        time.advance(Duration.ofMillis(millis));
    }

    @Test
    void aNodeWhosePeersHoldNothingItLacksIsStrandedAfterOneSecond() {
        assertThat(stranded.check()).isFalse();
        advance(999);
        assertThat(stranded.check()).isFalse();
        advance(1);
        assertThat(stranded.check()).isTrue();
        assertThat(stranded.check()).as("and stays so: every tick may dial the next member").isTrue();
    }

    @Test
    void aPeerWithAPieceItLacksEndsItAndTheSecondCountsAfresh() {
        stranded.check();
        advance(900);
        interesting.add("b");
        assertThat(stranded.check()).isFalse();
        interesting.clear();
        stranded.check();
        advance(999);
        assertThat(stranded.check()).isFalse();
        advance(1);
        assertThat(stranded.check()).isTrue();
    }

    @Test
    void aNewPeerWhoseBitfieldIsYetToComeMayHelp() {
        stranded.check();
        advance(1_000);
        assertThat(stranded.check()).isTrue();
        Peer c = peer("c");
        c.bitfieldReceived = false;
        assertThat(stranded.check()).as("the member reached may hold what it lacks").isFalse();
        c.bitfieldReceived = true;
        stranded.check();
        advance(999);
        assertThat(stranded.check()).as("it holds nothing either: another second before the next").isFalse();
        advance(1);
        assertThat(stranded.check()).isTrue();
    }

    @Test
    void aNodeInAFullMeshOrNotWaitingForPeersIsNeverStranded() {
        bounded.set(false);
        stranded.check();
        advance(5_000);
        assertThat(stranded.check()).as("a full mesh has every member as a peer").isFalse();
        bounded.set(true);
        waitsForPeers.set(false);
        stranded.check();
        advance(5_000);
        assertThat(stranded.check()).as("complete, or works left in phase 1").isFalse();
    }

    @Test
    void itReachesOutWellBeforeTheOrphanRuleReadsFromS3() {
        assertThat(Stranded.STRANDED_NANOS).isLessThanOrEqualTo(OrphanRule.QUIET_NANOS / 3);
    }
}
