package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.p2p.protocol.MessageType;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Completion and the end of lingering, on fake time with fake peers. */
class LingerTest {

    private static final Duration LINGER = Duration.ofSeconds(10);

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final AtomicBoolean pending = new AtomicBoolean();
    private final AtomicInteger finished = new AtomicInteger();
    private final Linger linger = new Linger(peers, time, LINGER, pending::get, finished::incrementAndGet);

    private Peer connect(String id) {
        Peer p = FakeLink.peer(id, 4);
        peers.put(id, p);
        return p;
    }

    @Test
    void onCompletionEveryPeerHearsNotInterestedThenDone() {
        Peer a = connect("a");
        a.amInterested = true;
        linger.completed();
        assertEquals(List.of(MessageType.NOT_INTERESTED, MessageType.DONE), FakeLink.of(a).types());
        assertFalse(a.amInterested);
        assertTrue(linger.isCompleted());
    }

    @Test
    void aNodeWaitsForAPeerThatIsNotDoneUntilTheLingerTimeIsOver() {
        connect("a");
        linger.completed();
        linger.check();
        assertEquals(0, finished.get());
        assertEquals(List.of(LINGER), time.delays());
        time.advance(LINGER.minusMillis(1));
        assertEquals(0, finished.get());
        time.advance(Duration.ofMillis(1));
        assertEquals(1, finished.get());
    }

    @Test
    void lingeringEndsAsSoonAsEveryPeerIsDone() {
        Peer a = connect("a");
        Peer b = connect("b");
        linger.completed();
        a.done = true;
        linger.check();
        assertEquals(0, finished.get());
        b.done = true;
        linger.check();
        assertEquals(1, finished.get());
    }

    @Test
    void aMemberStillExpectedToConnectKeepsTheNodeLingering() {
        pending.set(true);
        linger.completed();
        linger.check();
        assertEquals(0, finished.get(), "no peer, but a member is yet to connect");
        pending.set(false);
        linger.check();
        assertEquals(1, finished.get());
    }

    @Test
    void somebodyWaitsWhileAPeerIsNotDoneOrAMemberIsYetToConnect() {
        assertTrue(linger.nobodyWaits());
        Peer a = connect("a");
        assertFalse(linger.nobodyWaits(), "a peer not done");
        a.done = true;
        assertTrue(linger.nobodyWaits());
        pending.set(true);
        assertFalse(linger.nobodyWaits(), "every peer done, but a member is yet to connect: the dialler keeps dialling it");
    }

    @Test
    void nothingEndsBeforeCompletionAndCancelLeavesNoTimer() {
        linger.check();
        assertEquals(0, finished.get());
        connect("a");
        linger.completed();
        linger.cancel();
        assertTrue(time.scheduled().isEmpty());
        time.advance(LINGER.multipliedBy(2));
        assertEquals(0, finished.get());
    }
}
