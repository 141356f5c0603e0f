package io.s3broadcast.spi.cluster;

import io.s3broadcast.Strategy;
import io.s3broadcast.spi.PieceRun;
import java.util.List;
import java.util.Random;

/**
 * A strategy as an object: how it plans phase 1 (which pieces this node reads from S3, whether it steals
 * and gives works) and when it lets phase 2 run. The user chooses a {@link Strategy}; {@link #of} maps it to
 * its plan: {@link FlatTreePlan}, {@link NonStealPlan}, {@link StealPlan} or {@link OverlapPlan}.
 */
public interface ClusterPlan {

    /** The plan of {@code strategy}. */
    static ClusterPlan of(Strategy strategy) {
        return switch (strategy) {
            case FLAT_TREE -> FlatTreePlan.INSTANCE;
            case NON_STEAL -> NonStealPlan.INSTANCE;
            case STEAL -> StealPlan.INSTANCE;
            case OVERLAP -> OverlapPlan.INSTANCE;
        };
    }

    /** The strategy this plan carries out. */
    Strategy strategy();

    /**
     * The works node {@code index} of {@code nodes} reads from S3 at the start, in the order it reads them, each
     * of {@code sizing.workPieces()} pieces at most (the last may be shorter).
     */
    default List<PieceRun> share(int pieceCount, int nodes, int index, WorkSizing.Sizing sizing) {
        return Shares.works(pieceCount, nodes, index, sizing.workPieces());
    }

    /** How many nodes read the object in phase 1 when {@code members} take part (the flat tree: each alone). */
    default int sharingNodes(int members) {
        return members;
    }

    /** The phase-1 scheduler: steals (with {@code random} to spread thieves) or not. */
    StealingScheduler scheduler(Random random);

    /** Whether this node hands works to a peer that asks ({@code GIVE_WORK_REQUEST}). */
    boolean givesWork();

    /**
     * Whether this node may request pieces from peers now; {@code phase1OverEverywhere} is whether every node
     * it knows has reported an empty work list (the barrier of non-steal and steal).
     */
    boolean phase2Allowed(boolean phase1OverEverywhere);
}
