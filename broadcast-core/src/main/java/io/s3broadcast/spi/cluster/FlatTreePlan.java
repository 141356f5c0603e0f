package io.s3broadcast.spi.cluster;

import io.s3broadcast.Strategy;

/**
 * The flat tree: non-steal with every node alone. Each node reads the whole object from S3 by itself; no
 * stealing, no works given, no phase 2.
 */
final class FlatTreePlan extends NonStealPlan {

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
    public boolean phase2Allowed(boolean phase1OverEverywhere) {
        return false;
    }
}
