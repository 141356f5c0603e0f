package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.cluster.ClusterPlan;
import io.s3broadcast.spi.cluster.RendezvousShares;
import io.s3broadcast.spi.cluster.Shares;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceRun;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * This node's share of phase 1 (paper 000): the members sorted by node id fix each one's index i of N, and the
 * plan cuts pieces [iP/N, (i+1)P/N) into works of the size the sizing policy gives. A node that registered when
 * the group was already complete ({@code late}) has no share: it steals and pulls, and its reads are sized as a
 * member's would be.
 *
 * @param works the works of the share, empty for a late node
 * @param sizing ranges, works and S3 connections of this node's reads
 * @param index this node's index among the sharing nodes, -1 for a late node
 * @param nodes how many nodes share the object
 * @param units whether the works are rendezvous units ({@link RendezvousShares}), which a member learnt of later
 *     takes back ({@link ShareHandBack}); false for shares by index and for a late node
 */
record NodeShare(List<PieceRun> works, WorkSizing.Sizing sizing, int index, int nodes, boolean units) {

    /** The share of {@code self} among {@code members} (with or without {@code self}), by index. */
    static NodeShare of(ClusterPlan plan, WorkSizing policy, PieceLayout layout, Collection<String> members,
            String self, boolean late) {
        return of(plan, policy, layout, members, self, late, false);
    }

    /**
     * The share of {@code self} among {@code members}: by index, or ({@code rendezvous}, for nodes whose views of
     * the membership may differ, with a plan that shares the object) the units it owns by {@link RendezvousShares},
     * each a work, heaviest first. A node alone in its view owns every unit: it reads them as units too, so that
     * those a member it learns of later owns can be handed back whatever the work size its reads would have had.
     */
    static NodeShare of(ClusterPlan plan, WorkSizing policy, PieceLayout layout, Collection<String> members,
            String self, boolean late, boolean rendezvous) {
        TreeSet<String> ids = new TreeSet<>(members);
        int pieceCount = layout.pieceCount();
        int nodes = plan.sharingNodes(ids.contains(self) ? ids.size() : ids.size() + 1);
        WorkSizing.Sizing sizing = policy.size(
                WorkSizing.Share.of(Shares.end(pieceCount, nodes, 0), layout.pieceSize(), nodes));
        if (late) {
            return new NodeShare(List.of(), sizing, -1, nodes, false);
        }
        ids.add(self);
        int index = new ArrayList<>(ids).indexOf(self);
        // The flat tree has every node read everything (one sharing node, whatever the members): no units.
        if (rendezvous && plan.sharingNodes(2) > 1) {
            return new NodeShare(RendezvousShares.share(pieceCount, ids, self), sizing, index, nodes, true);
        }
        return new NodeShare(plan.share(pieceCount, nodes, index, sizing), sizing, index, nodes, false);
    }

    /** Rendezvous units and no other member known: this node reads everything until it learns of one. */
    boolean alone() {
        return units && nodes == 1;
    }

    @Override
    public String toString() {
        if (index < 0) {
            return "late: no share, it steals and pulls";
        }
        return index + " of " + nodes + " nodes, share " + describe(works) + " in " + works.size() + " works, " + sizing;
    }

    /** {@code [first, end)} when the works follow one another, else how many pieces and where they start. */
    static String describe(List<PieceRun> works) {
        if (works.isEmpty()) {
            return "empty";
        }
        int pieces = 0;
        boolean contiguous = true;
        for (int i = 0; i < works.size(); i++) {
            PieceRun w = works.get(i);
            pieces += w.end() - w.first();
            contiguous &= i == 0 || works.get(i - 1).end() == w.first();
        }
        PieceRun first = works.get(0);
        return contiguous ? "[" + first.first() + ", " + works.get(works.size() - 1).end() + ")"
                : pieces + " pieces from [" + first.first() + ", " + first.end() + ")";
    }
}
