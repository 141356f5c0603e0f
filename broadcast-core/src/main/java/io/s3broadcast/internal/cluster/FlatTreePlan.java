package io.s3broadcast.internal.cluster;

import io.s3broadcast.Strategy;
import java.util.Random;

/** The flat tree: every node reads the whole object from S3 on its own; no stealing, no phase 2. */
final class FlatTreePlan implements ClusterPlan {

    static final FlatTreePlan INSTANCE = new FlatTreePlan();

    private FlatTreePlan() {
    }

    @Override
    public Strategy strategy() {
        return Strategy.FLAT_TREE;
    }

    @Override
    public int sharingNodes(int members) {
        return 1;
    }

    @Override
    public StealingScheduler scheduler(Random random) {
        return StealingScheduler.nonSteal();
    }

    @Override
    public boolean givesWork() {
        return false;
    }

    @Override
    public boolean phase2Allowed(boolean phase1OverEverywhere) {
        return false;
    }
}
