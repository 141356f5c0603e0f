package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.Bitfield;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.RendezvousShares;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Handing back the units of a member learnt of later, on fake time with a fetch that never reads. */
class ShareHandBackTest {

    private static final PieceLayout LAYOUT = new PieceLayout(64L << 20, 1 << 20);
    private static final int PIECES = LAYOUT.pieceCount();

    private final ManualScheduler time = new ManualScheduler();
    private final ShareFetcher phase1 = Phase1Fixture.fetcher(PIECES, Map.of(), time);
    private final ShareHandBack handBack = new ShareHandBack(() -> "self", PIECES, phase1);

    /** Begins as the engine does without an expected count: the share of "self" among {@code members}. */
    private NodeShare begin(List<String> members) {
        NodeShare share = NodeShare.of(ClusterPlan.of(Strategy.OVERLAP), WorkSizing.computed(16), LAYOUT, members,
                "self", false, true);
        handBack.begin(members, share.units());
        phase1.begin(share.works(), share.sizing(), new Bitfield(PIECES), share.alone(), 0);
        return share;
    }

    @Test
    void aNodeThatBeganAloneHandsBackTheUnitsOfEachMemberItLearnsOfAndReadsWideFromThen() {
        NodeShare share = begin(List.of("self"));
        assertThat(share.alone()).isTrue();
        assertThat(share.works()).hasSize(PIECES);
        assertThat(phase1.readsNarrow()).isTrue();

        handBack.learned("b");
        assertThat(phase1.readsNarrow()).isFalse();
        assertThat(phase1.workList().works())
                .containsExactlyInAnyOrderElementsOf(RendezvousShares.share(PIECES, List.of("self", "b"), "self"));
        handBack.learned("c");
        assertThat(phase1.workList().works())
                .containsExactlyInAnyOrderElementsOf(RendezvousShares.share(PIECES, List.of("self", "b", "c"), "self"));
    }

    @Test
    void unitsAlreadyStartedStayWithTheNodeThatStartedThem() {
        begin(List.of("self"));
        List<PieceRun> started = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            started.add(phase1.workList().poll(1)); // what the S3 connections took before "b" was known
        }
        handBack.learned("b");
        List<PieceRun> expected = new ArrayList<>(RendezvousShares.share(PIECES, List.of("self", "b"), "self"));
        started.stream().filter(w -> !expected.contains(w)).forEach(expected::add);
        assertThat(phase1.workList().works()).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aNodeThatBeganWithOthersReadsWideAtOnceAndHandsBackAsBefore() {
        NodeShare share = begin(List.of("self", "b"));
        assertThat(share.alone()).isFalse();
        assertThat(phase1.readsNarrow()).isFalse();
        handBack.learned("c");
        assertThat(phase1.workList().works())
                .containsExactlyInAnyOrderElementsOf(RendezvousShares.share(PIECES, List.of("self", "b", "c"), "self"));
    }

    @Test
    void sharesByIndexHandNothingBack() {
        NodeShare share = NodeShare.of(ClusterPlan.of(Strategy.OVERLAP), WorkSizing.computed(16), LAYOUT,
                List.of("self"), "self", false, false);
        handBack.begin(List.of("self"), share.units());
        phase1.begin(share.works(), share.sizing(), new Bitfield(PIECES), share.alone(), 0);
        List<PieceRun> before = phase1.workList().works();
        handBack.learned("b");
        assertThat(phase1.workList().works()).isEqualTo(before);
    }
}
