package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Members joining, connecting, leaving and timing out, on fake time. */
class MembershipTest {

    private static final Duration GRACE = Duration.ofSeconds(5);

    private final ManualScheduler time = new ManualScheduler();
    private final Membership membership = new Membership(time.ticker(), GRACE.toNanos());

    private static NodeInfo node(String id) {
        return new NodeInfo(id, "127.0.0.1", 7000);
    }

    @Test
    void aNewMemberIsWaitedForUntilItConnects() {
        assertTrue(membership.joined(node("b"), false));
        assertTrue(membership.isMember("b"));
        assertTrue(membership.anyPending());
        membership.connected("b");
        assertFalse(membership.anyPending());
        assertTrue(membership.isMember("b"));
    }

    @Test
    void aMemberThatLeftIsNoMemberButItsWordStillCountsUnlikeAStrangers() {
        membership.joined(node("b"), true);
        membership.left(node("b"));
        assertFalse(membership.isMember("b"));
        assertTrue(membership.trusted("b"), "its vouches for pieces it read stay good");
        assertFalse(membership.trusted("stranger"));
        membership.left(node("stranger")); // a leave of a node never seen makes it no former member
        assertFalse(membership.trusted("stranger"));
    }

    @Test
    void aMemberAlreadyConnectedIsNotWaitedFor() {
        assertTrue(membership.joined(node("b"), true));
        assertFalse(membership.anyPending());
    }

    @Test
    void aMemberKnownAlreadyChangesNothing() {
        membership.joined(node("b"), true);
        assertFalse(membership.joined(node("b"), false));
        assertFalse(membership.anyPending());
    }

    @Test
    void aMemberThatDoesNotConnectWithinTheGraceIsNoLongerWaitedFor() {
        membership.joined(node("b"), false);
        time.advance(Duration.ofSeconds(2));
        membership.joined(node("c"), false);
        time.advance(GRACE.minusSeconds(2));
        membership.expirePending();
        assertEquals(Set.of("b", "c"), membership.pending().keySet(), "b's grace is not over yet");
        time.advance(Duration.ofMillis(1));
        membership.expirePending();
        assertEquals(Set.of("c"), membership.pending().keySet());
        assertTrue(membership.isMember("b"), "still a member, only not waited for");
        time.advance(Duration.ofSeconds(2));
        membership.expirePending();
        assertFalse(membership.anyPending());
    }

    @Test
    void aMemberThatLeavesIsForgotten() {
        membership.joined(node("b"), false);
        membership.left(node("b"));
        assertFalse(membership.isMember("b"));
        assertFalse(membership.anyPending());
        assertTrue(membership.members().isEmpty());
    }
}
