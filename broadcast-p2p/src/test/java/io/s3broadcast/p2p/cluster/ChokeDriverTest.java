package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.spi.cluster.ChokeScheduler;
import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Choking rounds on fake time with fake peers. */
class ChokeDriverTest {

    private static final Duration INTERVAL = Duration.ofSeconds(1);

    private final ManualScheduler time = new ManualScheduler();
    private final ChokeScheduler choke = ChokeScheduler.builder().ticker(time.ticker()).random(new Random(7)).slots(1)
            .interval(INTERVAL).minFlipInterval(INTERVAL).rateWindow(INTERVAL.multipliedBy(2)).build();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final ChokeDriver driver = new ChokeDriver(choke, peers, time, 1);

    private Peer connect(String id) {
        Peer p = FakeLink.peer(id, 4);
        peers.put(id, p);
        choke.peerConnected(id);
        return p;
    }

    private long unchoked() {
        return peers.values().stream().filter(p -> FakeLink.of(p).types().contains(MessageType.UNCHOKE)).count();
    }

    @Test
    void anInterestedPeerIsUnchokedAtOnceWhileASlotIsFree() {
        Peer a = connect("a");
        driver.interested(a, true);
        assertEquals(java.util.List.of(MessageType.UNCHOKE), FakeLink.of(a).types());
        assertTrue(a.peerInterested);
    }

    @Test
    void roundsRunEveryIntervalAndFillTheRegularAndTheOptimisticSlot() {
        for (String id : new String[] {"a", "b", "c", "d"}) {
            Peer p = connect(id);
            p.peerInterested = true;
            choke.interested(id, true);
        }
        driver.start();
        assertEquals(1, time.scheduled().size());
        assertEquals(INTERVAL, time.scheduled().get(0).period());
        assertEquals(0, unchoked());
        time.advance(INTERVAL);
        assertEquals(2, unchoked(), "one regular slot and the optimistic one");
        for (Peer p : peers.values()) {
            assertEquals(!choke.isChoking(p.id), FakeLink.of(p).types().contains(MessageType.UNCHOKE), p.id);
        }
    }

    @Test
    void aPeerThatLosesInterestFreesItsSlotForAWaitingOneWithoutWaitingForTheTimer() {
        Peer a = connect("a");
        Peer b = connect("b");
        Peer c = connect("c");
        driver.interested(a, true);
        driver.interested(b, true);
        assertEquals(2, unchoked(), "both slots taken");
        time.advance(INTERVAL); // past the least time between two flips
        driver.interested(c, true);
        assertTrue(FakeLink.of(c).sent.isEmpty(), "no slot free");
        driver.interested(a, false);
        assertEquals(java.util.List.of(MessageType.UNCHOKE), FakeLink.of(c).types());
    }

    @Test
    void stopCancelsTheRoundsAndSendsNothingMore() {
        Peer a = connect("a");
        a.peerInterested = true;
        choke.interested("a", true);
        driver.start();
        driver.stop();
        assertTrue(time.scheduled().isEmpty());
        driver.interested(a, true);
        time.advance(INTERVAL.multipliedBy(3));
        assertTrue(FakeLink.of(a).sent.isEmpty());
    }
}
