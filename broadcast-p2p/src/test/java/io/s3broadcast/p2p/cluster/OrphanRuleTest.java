package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.registry.NodeInfo;
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

/** The orphan rule on fake time with fake peers: when it fires, what counts as an orphan, who fetches what. */
class OrphanRuleTest {

    private static final int PIECES = 8;
    private static final Duration SETTLE = Duration.ofNanos(OrphanRule.SETTLE_NANOS);
    private static final Duration GRACE = Duration.ofNanos(Membership.CONNECT_GRACE_NANOS);

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final Membership membership = new Membership(time.ticker(), Membership.CONNECT_GRACE_NANOS);
    private final FakeRun run = new FakeRun();
    private final OrphanRule rule = new OrphanRule(() -> "b", PIECES, peers, membership, time.ticker(), () -> run.ownOver,
            () -> run.have, p -> run.pending.contains(p) || run.checking.contains(p) || run.obtainable.contains(p),
            () -> 2, run.taken::add);

    /** Node b holds pieces [0, 4); peers a and c are connected members with no works left. */
    OrphanRuleTest() {
        run.have.setRange(0, 4);
        connect("a");
        connect("c");
    }

    private Peer connect(String id) {
        membership.joined(new NodeInfo(id, "127.0.0.1", 1), true);
        Peer p = FakeLink.peer(id, PIECES);
        p.worksLeft = 0;
        peers.put(id, p);
        return p;
    }

    @Test
    void orphansAreTakenOnlyOnceTheConditionHeldForTheSettleTime() {
        rule.check();
        time.advance(SETTLE.minusNanos(1));
        rule.check();
        assertThat(run.taken).isEmpty();
        time.advance(Duration.ofNanos(1));
        rule.check();
        // Orphans 4..7 shared by a, b and c in id order: b, the second, takes piece 5.
        assertThat(run.taken).containsExactly(List.of(new PieceRun(5, 6)));
    }

    @Test
    void theSettleTimeStartsAgainWhenTheConditionBreaks() {
        rule.check();
        time.advance(SETTLE.dividedBy(2));
        peers.get("a").worksLeft = 1;
        rule.check();
        peers.get("a").worksLeft = 0;
        time.advance(SETTLE.dividedBy(2));
        rule.check();
        time.advance(SETTLE.minusNanos(1));
        rule.check();
        assertThat(run.taken).isEmpty();
        time.advance(Duration.ofNanos(1));
        rule.check();
        assertThat(run.taken).hasSize(1);
    }

    @Test
    void nothingIsTakenWhileThisNodeStillHasPhaseOneWork() {
        run.ownOver = false;
        rule.check();
        time.advance(SETTLE);
        rule.check();
        assertThat(run.taken).isEmpty();
    }

    @Test
    void aMemberNotConnectedYetHoldsTheRuleBackUntilItsGraceIsOverThenCountsAsGone() {
        membership.joined(new NodeInfo("d", "127.0.0.1", 1), false);
        assertThat(rule.peersOutOfWork()).isFalse();
        rule.check();
        time.advance(SETTLE);
        rule.check();
        assertThat(run.taken).as("d may still come with its share").isEmpty();

        time.advance(GRACE);
        membership.expirePending();
        assertThat(rule.peersOutOfWork()).isTrue();
        rule.check();
        time.advance(SETTLE);
        rule.check();
        // d is gone: not a survivor, and its pieces are orphans like any other.
        assertThat(run.taken).containsExactly(List.of(new PieceRun(5, 6)));
    }

    @Test
    void aMemberWhoseConnectionWasClosedAsSilentIsNoSurvivorThoughTheRegistryStillListsIt() {
        // c is alive but unreachable: its connection closed for idleness, the registry still lists it, and the
        // registry reporting it again (a poll) does not make it awaited again.
        peers.remove("c");
        assertThat(membership.joined(new NodeInfo("c", "127.0.0.1", 1), false)).isFalse();
        assertThat(membership.isMember("c")).isTrue();
        assertThat(rule.peersOutOfWork()).isTrue();
        rule.check();
        time.advance(SETTLE);
        rule.check();
        // a and b share 4..7 at once, without waiting for the registry to drop c: b, the second, takes 6 and 7.
        assertThat(run.taken).containsExactly(List.of(new PieceRun(6, 8)));
    }

    @Test
    void aMemberThatLeftIsNoSurvivorAndWhatOnlyItHadIsOrphaned() {
        peers.remove("c");
        membership.left(new NodeInfo("c", "127.0.0.1", 1));
        rule.check();
        time.advance(SETTLE);
        rule.check();
        // a and b share 4..7: b, the second, takes 6 and 7.
        assertThat(run.taken).containsExactly(List.of(new PieceRun(6, 8)));
    }

    @Test
    void piecesUnderACheckFromS3AndPiecesAPeerHoldsOrThisNodeFetchesAreNoOrphans() {
        run.checking.add(4);
        run.obtainable.add(5);
        run.pending.add(6);
        rule.check();
        time.advance(SETTLE);
        rule.check();
        // Only 7 is an orphan: c takes it (the last of a, b, c), b takes nothing.
        assertThat(run.taken).containsExactly(List.of());

        run.taken.clear();
        run.checking.clear();
        run.obtainable.clear();
        run.pending.clear();
        run.have.setRange(4, 8);
        rule.check();
        time.advance(SETTLE);
        rule.check();
        assertThat(run.taken).as("nothing missing").isEmpty();
    }

    @Test
    void donePeersAreNoSurvivors() {
        peers.get("a").done = true;
        rule.check();
        time.advance(SETTLE);
        rule.check();
        // b and c share 4..7 in works of at most two pieces: b, the first, takes 4 and 5.
        assertThat(run.taken).containsExactly(List.of(new PieceRun(4, 6)));
    }

    @Test
    void whenOrphansRemainLongAfterARoundWithoutWorkAdvertisedThisNodeTakesThemAll() {
        rule.check();
        time.advance(SETTLE);
        rule.check();
        run.taken.clear();
        rule.check();
        time.advance(SETTLE);
        rule.check();
        assertThat(run.taken).as("the others may still be reading theirs and saying so").isEmpty();
        time.advance(Duration.ofNanos(OrphanRule.DISAGREE_NANOS).minus(SETTLE).minusNanos(1));
        rule.check();
        assertThat(run.taken).isEmpty();
        time.advance(Duration.ofNanos(1));
        rule.check();
        assertThat(run.taken).containsExactly(List.of(new PieceRun(4, 6), new PieceRun(6, 8)));

        run.taken.clear();
        rule.peerHasWork();
        rule.check();
        time.advance(SETTLE);
        rule.check();
        assertThat(run.taken).as("shared out again").containsExactly(List.of(new PieceRun(5, 6)));
    }

    /** What the rule reads of the run, set by each test. */
    private static final class FakeRun {
        final Bitfield have = new Bitfield(PIECES);
        final Set<Integer> pending = new TreeSet<>();
        final Set<Integer> checking = new TreeSet<>();
        final Set<Integer> obtainable = new TreeSet<>();
        final List<List<PieceRun>> taken = new ArrayList<>();
        boolean ownOver = true;
    }
}
