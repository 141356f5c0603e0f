package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a peer dropped for being slow still counts as holding, on fake time. */
class DroppedPeersTest {

    private static final Duration REST = Duration.ofSeconds(30);
    /** The rest plus the time to connect again. */
    private static final Duration GRACE = REST.plusNanos(DroppedPeers.RECONNECT_NANOS);

    private final ManualScheduler time = new ManualScheduler();
    private final Set<String> members = new HashSet<>(Set.of("a", "b"));
    private final DroppedPeers dropped = new DroppedPeers(time.ticker(), REST.multipliedBy(2).toNanos(),
            members::contains);

    private static Bitfield bits(int... pieces) {
        Bitfield b = new Bitfield(8);
        for (int p : pieces) {
            b.set(p);
        }
        return b;
    }

    @Test
    void aDroppedPeersPiecesCountForTheGraceThenNoLonger() {
        assertFalse(dropped.holds(1), "nobody dropped");
        Bitfield held = bits(1, 2);
        dropped.dropped("a", held, REST.toNanos());
        held.set(5);
        assertTrue(dropped.holds(1));
        assertTrue(dropped.holds(2));
        assertFalse(dropped.holds(5), "what it held when dropped (a copy)");
        time.advance(GRACE.minusMillis(1));
        assertTrue(dropped.holds(1));
        time.advance(Duration.ofMillis(1));
        assertFalse(dropped.holds(1), "the grace is over: an orphan like any other");
        assertFalse(dropped.holds(2));
    }

    @Test
    void eachDropsGraceFollowsItsOwnRest() {
        Duration second = REST.multipliedBy(2); // a second drop of the same peer
        dropped.dropped("a", bits(1), REST.toNanos());
        dropped.dropped("b", bits(2), second.toNanos());
        time.advance(GRACE);
        assertFalse(dropped.holds(1), "a's grace is over");
        assertTrue(dropped.holds(2), "b rests twice as long, and its pieces count until it can be back");
        time.advance(REST.minusMillis(1));
        assertTrue(dropped.holds(2));
        time.advance(Duration.ofMillis(1));
        assertFalse(dropped.holds(2));
    }

    @Test
    void fromAThirdDropTheGraceStopsAtTheSecondRestSoAStallerCannotHoldPiecesForEver() {
        Duration third = REST.multipliedBy(4);
        dropped.dropped("a", bits(1), third.toNanos());
        time.advance(REST.multipliedBy(2).plusNanos(DroppedPeers.RECONNECT_NANOS).minusMillis(1));
        assertTrue(dropped.holds(1));
        time.advance(Duration.ofMillis(1));
        assertFalse(dropped.holds(1), "an orphan while a still rests: the orphan rule fetches it");
    }

    @Test
    void aDroppedPeerThatLeavesTheGroupHoldsNothing() {
        dropped.dropped("a", bits(1), REST.toNanos());
        dropped.dropped("b", bits(2), REST.toNanos());
        members.remove("a");
        assertFalse(dropped.holds(1), "a left the group: what it held is not on its way");
        assertTrue(dropped.holds(2));
    }
}
