package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A peer dropped for being slow rests, for longer each time, then may connect again: on fake time. */
class RestingPeersTest {

    private static final Duration FIRST = Duration.ofSeconds(30);

    private final ManualScheduler time = new ManualScheduler();
    private final RestingPeers resting = new RestingPeers(time.ticker(), FIRST.toNanos(), () -> "self");

    @Test
    void aDroppedPeerRestsForTheFirstRestThenNoLonger() {
        assertFalse(resting.isResting("a"), "nobody dropped");
        Peer a = FakeLink.peer("a", 4);
        resting.drop(a, "did not answer 3 piece requests within 30000 ms");
        assertTrue(resting.isResting("a"));
        assertTrue(resting.refuses("a"), "its dial is refused");
        assertFalse(resting.isResting("b"), "only the peer dropped");
        assertTrue(a.droppedSlow, "slow, not lying: what it holds still counts for a while (DroppedPeers)");
        assertEquals(Goodbye.Reason.MISBEHAVIOUR, FakeLink.of(a).goodbye.reason(), "told why");
        assertEquals("did not answer 3 piece requests within 30000 ms", FakeLink.of(a).goodbye.detail());
        time.advance(FIRST.minusMillis(1));
        assertTrue(resting.isResting("a"));
        time.advance(Duration.ofMillis(1));
        assertFalse(resting.isResting("a"), "taken back once the rest is over");
    }

    @Test
    void eachDropOfTheSamePeerDoublesItsRestUpToTheCap() {
        for (int drop = 0; drop <= RestingPeers.MAX_DOUBLINGS + 1; drop++) {
            Duration rest = FIRST.multipliedBy(1L << Math.min(drop, RestingPeers.MAX_DOUBLINGS));
            assertEquals(rest.toNanos(), resting.rest("a"), "drop " + (drop + 1));
            time.advance(rest.minusMillis(1));
            assertTrue(resting.isResting("a"));
            time.advance(Duration.ofMillis(1));
            assertFalse(resting.isResting("a"));
        }
        assertEquals(FIRST.toNanos(), resting.rest("b"), "another peer's rest starts from the first");
    }

    @Test
    void aPeerThisNodeDroppedIsRefusedButOneThatDroppedThisNodeMayDial() {
        resting.rest("dropped");
        resting.droppedBy("dropper");
        assertTrue(resting.isResting("dropped"), "not dialled");
        assertTrue(resting.refuses("dropped"), "nor accepted");
        assertTrue(resting.isResting("dropper"), "not dialled: it would refuse this node");
        assertFalse(resting.refuses("dropper"), "but taken when its own rest, begun first, is over and it dials");
        assertFalse(resting.refuses("stranger"));
        time.advance(FIRST);
        assertFalse(resting.isResting("dropped"));
        assertFalse(resting.refuses("dropped"));
        assertFalse(resting.isResting("dropper"));
    }

    @Test
    void bothKindsOfDropCountTowardsTheDoublingAndTheLastRestIsKept() {
        assertEquals(0, resting.lastRestNanos("a"), "never rested");
        assertEquals(FIRST.toNanos(), resting.droppedBy("a"));
        assertEquals(FIRST.toNanos(), resting.lastRestNanos("a"));
        time.advance(FIRST);
        assertEquals(FIRST.toNanos() * 2, resting.rest("a"));
        assertTrue(resting.refuses("a"), "the later drop decides whether its dial is taken");
        time.advance(FIRST.multipliedBy(2));
        assertFalse(resting.isResting("a"));
        assertEquals(FIRST.toNanos() * 2, resting.lastRestNanos("a"), "over, but still its last");
    }

    @Test
    void aRestMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new RestingPeers(time.ticker(), 0, () -> "self"));
    }
}
