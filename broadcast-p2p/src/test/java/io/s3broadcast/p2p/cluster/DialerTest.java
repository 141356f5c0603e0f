package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The overlay: who dials whom, how many, and when again, on fake time with a fake connector. */
class DialerTest {

    private static final String SELF = "b";
    private static final Duration GRACE = Duration.ofSeconds(5);

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final Set<String> banned = new HashSet<>();
    private final List<String> dials = new ArrayList<>();
    private final Map<String, Runnable> failures = new LinkedHashMap<>();
    private final AtomicBoolean complete = new AtomicBoolean();
    private final AtomicBoolean noNeed = new AtomicBoolean();
    private Membership membership;
    private Dialer dialer;

    DialerTest() {
        shape(16, 20);
    }

    private void shape(int overlayPeers, int acceptPeers) {
        membership = new Membership(time.ticker(), Duration.ofSeconds(5).toNanos(), overlayPeers, peers::size);
        dialer = new Dialer(() -> SELF, membership, peers, banned::contains, time, (node, failed) -> {
            dials.add(node.nodeId());
            failures.put(node.nodeId(), failed);
        }, () -> false, complete::get, noNeed::get, new Dialer.Shape(overlayPeers, acceptPeers, new Random(7), time.ticker(),
                GRACE.toNanos()));
    }

    /** Members this node ({@link #SELF}) dials, and others that dial it. */
    private static List<String> ids(boolean dialledBySelf, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; out.size() < n; i++) {
            String id = "n" + i;
            if (DialPairs.dials(SELF, id) == dialledBySelf) {
                out.add(id);
            }
        }
        return out;
    }

    private NodeInfo join(String id) {
        NodeInfo n = new NodeInfo(id, "127.0.0.1", 7000);
        membership.joined(n, false);
        dialer.memberJoined(n);
        return n;
    }

    /** The dial to {@code id} connects: it is a peer now. */
    private Peer connect(String id) {
        dialer.handshaken(membership.get(id));
        dialer.connected(id);
        failures.remove(id);
        Peer p = FakeLink.peer(id, 1);
        peers.put(id, p);
        return p;
    }

    private void fail(String id) {
        failures.remove(id).run();
    }

    @Test
    void aGroupNoLargerThanTheOverlayIsAFullMesh() {
        List<String> mine = ids(true, 8);
        List<String> theirs = ids(false, 8);
        mine.forEach(this::join);
        theirs.forEach(this::join);
        assertThat(dials).containsExactlyInAnyOrderElementsOf(mine);
        assertThat(membership.bounded()).isFalse();
    }

    @Test
    void aFailedDialIsRetriedWithADelayThatDoublesUpToTwoSeconds() {
        String c = ids(true, 1).get(0);
        join(c);
        List<Duration> delays = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            fail(c);
            delays.add(time.delays().get(0));
            time.advance(time.delays().get(0));
        }
        assertThat(delays.stream().map(Duration::toMillis).toList())
                .containsExactly(100L, 200L, 400L, 800L, 1600L, 2000L, 2000L);
        assertThat(dials).hasSize(8);
    }

    @Test
    void aBoundedOverlayDialsHalfItsPeersAtRandomReplacesAFailedDialAtOnceAndTheRestAfterTheGrace() {
        shape(4, 5);
        for (String id : ids(true, 20)) {
            membership.joined(new NodeInfo(id, "127.0.0.1", 7000), false);
        }
        dialer.fill();
        assertThat(dials).as("half: the other half dials this node").hasSize(2).doesNotHaveDuplicates();
        assertThat(membership.bounded()).isTrue();

        fail(dials.get(0));
        assertThat(dials).hasSize(3).doesNotHaveDuplicates();
        List.copyOf(failures.keySet()).forEach(this::connect);
        assertThat(peers).hasSize(2);
        dialer.fill();
        assertThat(dials).as("waits for inbound peers").hasSize(3);
        time.advance(GRACE);
        dialer.fill();
        assertThat(dials).as("nobody dialled in within the grace: it dials the rest").hasSize(5).doesNotHaveDuplicates();
    }

    @Test
    void withTheEnginesGraceANodeShortOfPeersDialsTheRestAfterOneSecondNotTheConnectGrace() {
        membership = new Membership(time.ticker(), Membership.CONNECT_GRACE_NANOS, 4, peers::size);
        dialer = new Dialer(() -> SELF, membership, peers, banned::contains, time, (node, failed) -> {
            dials.add(node.nodeId());
            failures.put(node.nodeId(), failed);
        }, () -> false, complete::get, noNeed::get, new Dialer.Shape(4, 5, new Random(7), time.ticker(),
                Dialer.SHORT_OF_PEERS_GRACE_NANOS));
        for (String id : ids(true, 20)) {
            membership.joined(new NodeInfo(id, "127.0.0.1", 7000), false);
        }
        dialer.fill();
        List.copyOf(failures.keySet()).forEach(this::connect);
        assertThat(dials).as("half its overlay").hasSize(2);

        time.advance(Duration.ofMillis(999));
        dialer.fill();
        assertThat(dials).as("still waiting for the other half to dial it").hasSize(2);
        time.advance(Duration.ofMillis(1));
        dialer.fill();
        assertThat(dials).as("short of peers for 1 s: it dials the rest").hasSize(4).doesNotHaveDuplicates();
        assertThat(Dialer.SHORT_OF_PEERS_GRACE_NANOS).isLessThan(Membership.CONNECT_GRACE_NANOS);
    }

    /** The dial to {@code id} is refused for the member having too many peers (GOODBYE, then the close). */
    private void refuse(String id) {
        connect(id);
        dialer.refused(id);
        peers.remove(id);
        dialer.peerLost(id, false, 0);
    }

    @Test
    void aNodeShortOfPeersPastTheGraceWithNobodyLeftToDialDialsThoseThatRefusedItOnceMore() {
        shape(4, 5);
        List<String> members = ids(true, 6);
        for (String id : members) {
            membership.joined(new NodeInfo(id, "127.0.0.1", 7000), false);
        }
        dialer.fill();
        while (!failures.isEmpty()) {
            refuse(failures.keySet().iterator().next());
        }
        assertThat(dials).as("before the grace: each member once, nobody dialled again").hasSize(6)
                .doesNotHaveDuplicates();

        time.advance(GRACE);
        dialer.fill();
        assertThat(dials).as("short for the grace, out of members: four of those that refused, again").hasSize(10);
        assertThat(dials.subList(6, 10)).doesNotHaveDuplicates().isSubsetOf(members);
        List<String> again = List.copyOf(failures.keySet());
        again.forEach(this::refuse);
        dialer.fill();
        assertThat(dials).as("each insisted on once: the next two, then nobody").hasSize(12);
        List.copyOf(failures.keySet()).forEach(this::refuse);
        dialer.fill();
        assertThat(dials).hasSize(12);

        time.advance(Duration.ofMillis(Dialer.REFUSED_MILLIS));
        assertThat(dials).as("the refusals forgotten: dialled afresh").hasSize(16);
    }

    @Test
    void aStrandedNodeDialsOneMemberBeyondItsOverlayAtATimeInsistsOnceWhenRefusedAndStopsAtTheAcceptBound() {
        shape(3, 5);
        for (String id : ids(false, 3)) {
            join(id);
            peers.put(id, FakeLink.peer(id, 1)); // its overlay, all dialled in
        }
        ids(true, 4).forEach(this::join);
        time.advance(GRACE);
        dialer.fill();
        assertThat(dials).as("its overlay is full").isEmpty();

        dialer.reachOut();
        dialer.reachOut();
        assertThat(dials).as("one dial beyond the overlay at a time").hasSize(1);
        String first = dials.get(0);
        refuse(first);
        assertThat(dials).as("a refusal is no reason to dial on its own").hasSize(1);
        dialer.reachOut();
        assertThat(dials).as("it dials the member that refused it again: a second dial is taken").hasSize(2)
                .containsOnly(first);
        refuse(first);
        dialer.reachOut();
        assertThat(dials).as("insisted on once: another member").hasSize(3);
        assertThat(dials.get(2)).isNotEqualTo(first);
        connect(dials.get(2));
        dialer.reachOut();
        connect(dials.get(3));
        dialer.reachOut();
        assertThat(peers).as("up to the accept bound").hasSize(5);
        assertThat(dials).as("and no further").hasSize(4);
    }

    @Test
    void aNodeThatNeedsNoMoreConnectionsDoesNotReachOut() {
        shape(3, 5);
        for (String id : ids(true, 6)) {
            membership.joined(new NodeInfo(id, "127.0.0.1", 7000), false);
        }
        dialer.fill();
        List.copyOf(failures.keySet()).forEach(this::connect);
        assertThat(dials).as("half its overlay").hasSize(2);
        noNeed.set(true);
        dialer.reachOut();
        assertThat(dials).hasSize(2);
        noNeed.set(false);
        dialer.reachOut();
        assertThat(dials).hasSize(3);
    }

    @Test
    void aFullMeshDialsAMemberThatRefusedItOnlyAfterItsRest() {
        List<String> members = ids(true, 3);
        members.forEach(this::join);
        List.copyOf(failures.keySet()).forEach(this::refuse);
        time.advance(GRACE);
        dialer.fill();
        assertThat(membership.bounded()).isFalse();
        assertThat(dials).hasSize(3);
    }

    @Test
    void inboundPeersCountSoANodeWithEnoughDialsNobody() {
        shape(3, 4);
        for (String id : ids(false, 3)) {
            join(id);
            peers.put(id, FakeLink.peer(id, 1)); // they dialled this node
        }
        ids(true, 10).forEach(this::join);
        time.advance(GRACE);
        dialer.fill();
        assertThat(dials).isEmpty();
    }

    @Test
    void aLostPeerIsReplacedByAnotherMemberAndRestsBeforeItMayBePickedAgain() {
        shape(2, 3);
        ids(true, 5).forEach(this::join);
        List.copyOf(failures.keySet()).forEach(this::connect);
        String lost = dials.get(0);
        peers.remove(lost);
        dialer.peerLost(lost, false, 0);
        assertThat(dials).hasSize(2);
        assertThat(dials.get(1)).isNotEqualTo(lost);
        assertThat(time.delays()).containsExactly(Duration.ofMillis(100));
    }

    @Test
    void aMemberThatRefusesForHavingTooManyPeersRestsTenSeconds() {
        String c = ids(true, 1).get(0);
        join(c);
        connect(c);
        dialer.refused(c);
        peers.remove(c);
        dialer.peerLost(c, false, 0);
        assertThat(dials).containsExactly(c);
        time.advance(Duration.ofMillis(Dialer.REFUSED_MILLIS - 1));
        assertThat(dials).containsExactly(c);
        time.advance(Duration.ofMillis(1));
        assertThat(dials).containsExactly(c, c);
    }

    @Test
    void whileThisNodeIsNotCompleteADonePeerDoesNotCountSoAnotherIsDialledWithinTheAcceptBound() {
        shape(2, 3);
        ids(true, 6).forEach(this::join);
        time.advance(GRACE);
        dialer.fill();
        List.copyOf(failures.keySet()).forEach(this::connect);
        assertThat(dials).hasSize(2);
        peers.get(dials.get(0)).done = true;
        dialer.fill();
        time.advance(GRACE);
        dialer.fill();
        assertThat(dials).hasSize(3);
        connect(dials.get(2));
        peers.get(dials.get(1)).done = true;
        dialer.fill();
        assertThat(dials).as("three peers: the accept bound").hasSize(3);

        complete.set(true);
        peers.remove(dials.get(0));
        dialer.peerLost(dials.get(0), true, 0);
        assertThat(dials).as("complete: done peers count").hasSize(3);
    }

    @Test
    void aPeerLostAfterItWasDoneIsNotDialledAgain() {
        String c = ids(true, 1).get(0);
        join(c);
        connect(c).done = true;
        peers.remove(c);
        dialer.peerLost(c, true, 0);
        time.advance(Duration.ofSeconds(30));
        assertThat(dials).containsExactly(c);
        assertThat(time.scheduled()).isEmpty();
    }

    @Test
    void nobodyIsDialledOnceConnectedBannedGoneOrNoLongerNeeded() {
        List<String> mine = ids(true, 4);
        join(mine.get(0));
        peers.put(mine.get(0), FakeLink.peer(mine.get(0), 1));
        fail(mine.get(0));
        time.advance(Duration.ofSeconds(3));
        assertThat(dials).as("connected meanwhile (inbound)").containsExactly(mine.get(0));

        banned.add(mine.get(1));
        join(mine.get(1));
        assertThat(dials).as("banned").containsExactly(mine.get(0));

        NodeInfo gone = join(mine.get(2));
        fail(mine.get(2));
        membership.left(gone);
        time.advance(Duration.ofSeconds(3));
        assertThat(dials).as("left before its redial").containsExactly(mine.get(0), mine.get(2));

        noNeed.set(true);
        join(mine.get(3));
        assertThat(dials).as("complete and every peer done").containsExactly(mine.get(0), mine.get(2));
    }

    @Test
    void aConnectionClosedBeforeItsHandshakeIsDialledAgain() {
        String c = ids(true, 1).get(0);
        NodeInfo node = join(c);
        failures.remove(c);
        dialer.connectionClosed(node);
        time.advance(Duration.ofMillis(100));
        assertThat(dials).containsExactly(c, c);
    }

    @Test
    void aMemberWhoseLinkMeasuredFastIsPickedMoreOften() {
        List<String> mine = ids(true, 2);
        String fast = mine.get(0);
        String slow = mine.get(1);
        Map<String, Integer> picks = new HashMap<>();
        for (int seed = 0; seed < 300; seed++) {
            Membership m = new Membership(time.ticker(), 1, 1, peers::size);
            List<String> picked = new ArrayList<>();
            Dialer d = new Dialer(() -> SELF, m, peers, id -> false, time, (node, failed) -> picked.add(node.nodeId()),
                    () -> false, () -> false, () -> false, new Dialer.Shape(1, 2, new Random(seed * 0x9E3779B97F4A7C15L), time.ticker(), 1));
            d.peerLost(fast, false, 10e6); // peers before they were members: their rates are known
            d.peerLost(slow, false, 1e6);
            picked.clear();
            m.joined(new NodeInfo(fast, "127.0.0.1", 1), false);
            m.joined(new NodeInfo(slow, "127.0.0.1", 1), false);
            d.fill();
            picks.merge(picked.get(0), 1, Integer::sum);
        }
        // Weights 2 and 1.1: about 65% fast.
        assertThat(picks.get(fast)).isBetween(165, 225);
    }
}
