package io.s3broadcast.spi.cluster;

import io.s3broadcast.Strategy;
import java.util.Random;

/**
 * Non-steal (paper 000, 4.2): each node reads exactly its share, then waits; phase 2 starts once every node
 * has reported an empty work list.
 */
class NonStealPlan implements ClusterPlan {

    static final NonStealPlan INSTANCE = new NonStealPlan();

    NonStealPlan() {
    }

    @Override
    public Strategy strategy() {
        return Strategy.NON_STEAL;
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
        return phase1OverEverywhere;
    }
}
