package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.RendezvousShares;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import java.util.List;
import org.junit.jupiter.api.Test;

/** This node's share from the members it found. */
class NodeShareTest {

    private static final PieceLayout LAYOUT = new PieceLayout(64L << 20, 1 << 20);
    private static final ClusterPlan PLAN = ClusterPlan.of(Strategy.STEAL);
    private static final WorkSizing SIZING = WorkSizing.computed(16);

    @Test
    void membersSortedByIdFixTheIndexAndTheShare() {
        NodeShare s = NodeShare.of(PLAN, SIZING, LAYOUT, List.of("c", "a", "b"), "b", false);
        assertThat(s.index()).isEqualTo(1);
        assertThat(s.nodes()).isEqualTo(3);
        assertThat(s.works().get(0).first()).isEqualTo(21);
        assertThat(s.works().get(s.works().size() - 1).end()).isEqualTo(42);
    }

    @Test
    void thisNodeCountsWhetherTheRegistryListedItOrNot() {
        NodeShare s = NodeShare.of(PLAN, SIZING, LAYOUT, List.of("a", "c"), "b", false);
        assertThat(s.index()).isEqualTo(1);
        assertThat(s.nodes()).isEqualTo(3);
    }

    @Test
    void aLateNodeHasNoShareButItsReadsAreSizedAsAMembersWouldBe() {
        NodeShare late = NodeShare.of(PLAN, SIZING, LAYOUT, List.of("a", "c"), "b", true);
        assertThat(late.works()).isEmpty();
        assertThat(late.index()).isEqualTo(-1);
        assertThat(late.sizing()).isEqualTo(NodeShare.of(PLAN, SIZING, LAYOUT, List.of("a", "c"), "b", false).sizing());
    }

    @Test
    void aShareIsDescribedByItsRangeWhenItsWorksFollowOneAnotherElseByItsPieces() {
        assertThat(NodeShare.describe(List.of())).isEqualTo("empty");
        assertThat(NodeShare.describe(List.of(new PieceRun(4, 6), new PieceRun(6, 9)))).isEqualTo("[4, 9)");
        // Rendezvous units: scattered over the object, the first one where this node starts reading.
        assertThat(NodeShare.describe(List.of(new PieceRun(40, 42), new PieceRun(3, 5), new PieceRun(17, 18))))
                .isEqualTo("5 pieces from [40, 42)");
    }

    @Test
    void withoutAnExpectedCountANodeAloneReadsTheObjectInUnitsAMemberLearntOfLaterCanTakeBack() {
        // By index, a node alone reads the object in works of the size its reads have: several pieces each, which
        // no member's unit matches, so nothing could be handed back.
        NodeShare byIndex = NodeShare.of(PLAN, SIZING, LAYOUT, List.of("b"), "b", false, false);
        assertThat(byIndex.works()).anyMatch(w -> w.count() > 1);
        assertThat(byIndex.units()).isFalse();
        assertThat(RendezvousShares.ownedBy("a", byIndex.works(), LAYOUT.pieceCount(), List.of("b"))).isEmpty();

        NodeShare alone = NodeShare.of(PLAN, SIZING, LAYOUT, List.of("b"), "b", false, true);
        assertThat(alone.units()).isTrue();
        assertThat(alone.alone()).isTrue();
        assertThat(alone.sizing()).isEqualTo(byIndex.sizing());
        assertThat(alone.works()).containsExactlyElementsOf(RendezvousShares.share(LAYOUT.pieceCount(), List.of("b"), "b"));
        assertThat(RendezvousShares.ownedBy("a", alone.works(), LAYOUT.pieceCount(), List.of("b")))
                .hasSize(LAYOUT.pieceCount() - RendezvousShares.share(LAYOUT.pieceCount(), List.of("a", "b"), "b").size());
    }

    @Test
    void theFlatTreeReadsEverythingByIndexWithoutAnExpectedCountToo() {
        NodeShare s = NodeShare.of(ClusterPlan.of(Strategy.FLAT_TREE), SIZING, LAYOUT, List.of("b"), "b", false, true);
        assertThat(s.units()).isFalse();
        assertThat(s.alone()).isFalse();
        assertThat(NodeShare.describe(s.works())).isEqualTo("[0, " + LAYOUT.pieceCount() + ")");
    }

    @Test
    void aNodeThatSeesOthersIsNotAlone() {
        NodeShare s = NodeShare.of(PLAN, SIZING, LAYOUT, List.of("a", "c"), "b", false, true);
        assertThat(s.units()).isTrue();
        assertThat(s.alone()).isFalse();
        assertThat(NodeShare.of(PLAN, SIZING, LAYOUT, List.of("a", "c"), "b", true, true).units()).isFalse();
    }
}
