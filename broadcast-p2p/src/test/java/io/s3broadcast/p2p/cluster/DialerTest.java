package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Who dials whom, and when again, on fake time with a fake connector. */
class DialerTest {

    private final ManualScheduler time = new ManualScheduler();
    private final Membership membership = new Membership(time.ticker(), Duration.ofSeconds(5).toNanos());
    private final Map<String, Peer> peers = new TreeMap<>();
    private final Set<String> banned = new HashSet<>();
    private final List<String> dials = new ArrayList<>();
    private final List<Runnable> failures = new ArrayList<>();
    private final AtomicBoolean noNeed = new AtomicBoolean();
    private final Dialer dialer = new Dialer(() -> "b", membership, peers, banned::contains, time, (node, failed) -> {
        dials.add(node.nodeId());
        failures.add(failed);
    }, () -> false, noNeed::get);

    private NodeInfo join(String id) {
        NodeInfo n = new NodeInfo(id, "127.0.0.1", 7000);
        membership.joined(n, false);
        dialer.memberJoined(n);
        return n;
    }

    private void failLast() {
        failures.remove(failures.size() - 1).run();
    }

    @Test
    void theNodeWithTheSmallerIdDials() {
        join("a");
        join("c");
        assertEquals(List.of("c"), dials);
        assertTrue(dialer.isDialing("c"));
    }

    @Test
    void aFailedDialIsRetriedWithADelayThatDoublesUpToTwoSeconds() {
        join("c");
        List<Duration> delays = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            failLast();
            delays.add(time.delays().get(0));
            time.advance(time.delays().get(0));
        }
        assertEquals(List.of(100L, 200L, 400L, 800L, 1600L, 2000L, 2000L),
                delays.stream().map(Duration::toMillis).toList());
        assertEquals(8, dials.size());
    }

    @Test
    void nobodyIsDialledAgainOnceConnectedBannedGoneOrNoLongerNeeded() {
        NodeInfo c = join("c");
        peers.put("c", FakeLink.peer("c", 1));
        failLast();
        assertTrue(time.scheduled().isEmpty(), "connected meanwhile (inbound)");
        peers.clear();

        join("d");
        banned.add("d");
        failLast();
        assertTrue(time.scheduled().isEmpty(), "banned");

        NodeInfo e = join("e");
        failLast();
        membership.left(e);
        time.advance(Duration.ofSeconds(3));
        assertEquals(List.of("c", "d", "e"), dials, "e left before its redial");

        noNeed.set(true);
        dialer.dial(c);
        failLast();
        assertTrue(time.scheduled().isEmpty(), "complete and every peer done");
        assertEquals(List.of("c", "d", "e", "c"), dials);
    }

    @Test
    void aLostPeerIsDialledAgainUnlessItWasDone() {
        NodeInfo c = join("c");
        dialer.handshaken(c);
        dialer.connected("c");
        dialer.peerLost("c", true);
        assertTrue(time.scheduled().isEmpty());
        dialer.peerLost("c", false);
        time.advance(Duration.ofMillis(100));
        assertEquals(List.of("c", "c"), dials);
        dialer.handshaken(c);
        dialer.peerLost("a", false);
        assertEquals(List.of("c", "c"), dials, "a dials this node, not the other way");
    }

    @Test
    void aConnectionClosedBeforeItsHandshakeIsDialledAgain() {
        NodeInfo c = join("c");
        dialer.connectionClosed(c);
        time.advance(Duration.ofMillis(100));
        assertEquals(List.of("c", "c"), dials);
    }
}
