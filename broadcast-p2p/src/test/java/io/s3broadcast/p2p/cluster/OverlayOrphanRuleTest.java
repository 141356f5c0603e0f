package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import io.s3broadcast.p2p.protocol.PeerMessage;
import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The orphan rule and the membership wait in a bounded overlay (more members than this node's peers), on fake
 * time: node b keeps 2 peers (a and c) of the members a, c, d, e.
 */
class OverlayOrphanRuleTest {

    private static final int PIECES = 8;
    private static final Duration QUIET = Duration.ofNanos(OrphanRule.QUIET_NANOS);
    private static final Duration GRACE = Duration.ofNanos(Membership.CONNECT_GRACE_NANOS);

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final Membership membership = new Membership(time.ticker(), Membership.CONNECT_GRACE_NANOS, 2, peers::size);
    private final Bitfield have = new Bitfield(PIECES);
    private final Set<Integer> obtainable = new TreeSet<>();
    private final List<List<PieceRun>> taken = new ArrayList<>();
    private final OrphanRule rule = new OrphanRule(() -> "b", PIECES, peers, membership, time.ticker(), () -> true,
            () -> have, obtainable::contains, () -> 2, taken::add);

    /** b holds [0, 4); d and e are members this node is not connected to (their grace is over). */
    OverlayOrphanRuleTest() {
        have.setRange(0, 4);
        connect("a");
        connect("c");
        membership.joined(new NodeInfo("d", "127.0.0.1", 1), false);
        membership.joined(new NodeInfo("e", "127.0.0.1", 1), false);
        time.advance(GRACE.plusNanos(1));
        membership.expirePending();
    }

    private void connect(String id) {
        membership.joined(new NodeInfo(id, "127.0.0.1", 1), true);
        Peer p = FakeLink.peer(id, PIECES);
        p.worksLeft = 0;
        peers.put(id, p);
    }

    private void quiet() {
        rule.check();
        time.advance(QUIET);
        rule.check();
    }

    /** The condition starts holding now: nothing is taken until the quiet time has passed, then at once. */
    private void takenExactlyAfterTheQuietTime() {
        rule.check();
        time.advance(QUIET.minusNanos(1));
        rule.check();
        assertThat(taken).isEmpty();
        time.advance(Duration.ofNanos(1));
        rule.check();
    }

    @Test
    void orphansAreTakenOnlyAfterTheQuietTimeAndSharedByEveryMember() {
        assertThat(membership.bounded()).isTrue();
        takenExactlyAfterTheQuietTime();
        // Orphans 4..7 shared by a, b, c, d, e in id order: b, the second, takes the first of them.
        assertThat(taken).containsExactly(List.of(new PieceRun(4, 5)));
    }

    @Test
    void aPieceAnnouncedMeanwhileStartsTheQuietTimeAgain() {
        rule.check();
        time.advance(QUIET.dividedBy(2));
        obtainable.add(7); // a peer got piece 7 from further off: pieces are still on their way
        takenExactlyAfterTheQuietTime();
        // 4..6 by a, b, c, d, e: b takes the first.
        assertThat(taken).containsExactly(List.of(new PieceRun(4, 5)));
    }

    @Test
    void aPieceStoredMeanwhileStartsTheQuietTimeAgain() {
        rule.check();
        time.advance(QUIET.dividedBy(2));
        rule.check(); // nothing changed: no restart
        time.advance(QUIET.dividedBy(2));
        rule.check();
        assertThat(taken).hasSize(1);
        taken.clear();

        rule.check();
        time.advance(QUIET.dividedBy(2));
        have.set(7); // this node still receives pieces: the orphans may be on their way too
        takenExactlyAfterTheQuietTime();
        assertThat(taken).hasSize(1);
    }

    @Test
    void orphansLeftAfterTheMembersRoundGoToThisNodeAndItsPeersThenToThisNodeAlone() {
        quiet();
        taken.clear();
        quiet();
        // a, b, c: b, the second, takes piece 5.
        assertThat(taken).containsExactly(List.of(new PieceRun(5, 6)));
        taken.clear();
        quiet();
        assertThat(taken).as("views disagree: all").containsExactly(List.of(new PieceRun(4, 6), new PieceRun(6, 8)));
    }

    @Test
    void timeTheLoopDidNotRunDoesNotCountTowardsTheQuietTime() {
        rule.check();
        time.advance(Duration.ofMillis(100));
        rule.check();
        time.advance(QUIET);
        rule.loopStalled(QUIET.minusMillis(100).toNanos()); // one tick, late by the quiet time
        rule.check();
        assertThat(taken).as("it ran for 200 ms of the quiet time").isEmpty();
        time.advance(QUIET.minusMillis(200).minusNanos(1));
        rule.check();
        assertThat(taken).isEmpty();
        time.advance(Duration.ofNanos(1));
        rule.check();
        assertThat(taken).as("3 s of running quiet").containsExactly(List.of(new PieceRun(4, 5)));
    }

    @Test
    void aStallBeforeTheConditionHeldChangesNothing() {
        rule.loopStalled(QUIET.toNanos());
        takenExactlyAfterTheQuietTime();
        assertThat(taken).containsExactly(List.of(new PieceRun(4, 5)));
    }

    @Test
    void aMemberNotConnectedHoldsTheRuleBackOnlyWhileThisNodeHasFewerPeersThanItKeeps() {
        membership.joined(new NodeInfo("f", "127.0.0.1", 1), false);
        assertThat(membership.anyPending()).as("b has its 2 peers: f is not waited for").isFalse();
        peers.remove("c");
        assertThat(membership.anyPending()).as("1 peer: f may be the next").isTrue();
        rule.check();
        time.advance(QUIET);
        rule.check();
        assertThat(taken).as("the rule waits for f").isEmpty();
        time.advance(GRACE.plusNanos(1));
        membership.expirePending();
        assertThat(membership.anyPending()).as("grace over").isFalse();
        takenExactlyAfterTheQuietTime();
        assertThat(taken).isNotEmpty();
    }

    @Test
    void aMemberNotConnectedDoesNotHoldThePhaseTwoGateOfANodeShortOfPeers() {
        membership.joined(new NodeInfo("f", "127.0.0.1", 1), false);
        peers.remove("c");
        assertThat(membership.anyPending()).as("1 peer of 2: f may dial this node").isTrue();
        boolean[] started = new boolean[1];
        PhaseGate gate = new PhaseGate("b", ClusterPlan.of(Strategy.STEAL), () -> true, new PhaseOneRun() {
            @Override
            public Set<String> peers() {
                return peers.keySet();
            }

            @Override
            public boolean send(String peer, PeerMessage msg) {
                return false;
            }

            @Override
            public boolean peersOutOfWork() {
                return rule.peersOutOfWork();
            }

            @Override
            public void phase2Starts() {
                started[0] = true;
            }

            @Override
            public boolean peersFetching() {
                return false;
            }

            @Override
            public void failed(Throwable error) {
            }
        });
        peers.get("a").worksLeft = 1;
        gate.check();
        assertThat(started[0]).as("a still reads its share").isFalse();
        peers.get("a").worksLeft = 0;
        gate.check();
        assertThat(started[0]).as("its peer is out of work: phase 2 opens without waiting for f (connect grace: "
                + GRACE + ")").isTrue();
        assertThat(gate.phase2Allowed()).isTrue();
        assertThat(membership.anyPending()).as("still within f's grace").isTrue();
    }

    @Test
    void inAFullMeshAMemberNotConnectedYetHoldsThePhaseTwoGate() {
        Membership mesh = new Membership(time.ticker(), Membership.CONNECT_GRACE_NANOS, 16, peers::size);
        OrphanRule meshRule = new OrphanRule(() -> "b", PIECES, peers, mesh, time.ticker(), () -> true, () -> have,
                obtainable::contains, () -> 2, taken::add);
        mesh.joined(new NodeInfo("a", "127.0.0.1", 1), true);
        mesh.joined(new NodeInfo("c", "127.0.0.1", 1), true);
        mesh.joined(new NodeInfo("f", "127.0.0.1", 1), false);
        assertThat(mesh.bounded()).isFalse();
        assertThat(meshRule.peersOutOfWork()).as("f will connect, with its share").isFalse();
        time.advance(GRACE.plusNanos(1));
        mesh.expirePending();
        assertThat(meshRule.peersOutOfWork()).isTrue();
    }
}
