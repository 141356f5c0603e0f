package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.ClusterPlan;
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
}
