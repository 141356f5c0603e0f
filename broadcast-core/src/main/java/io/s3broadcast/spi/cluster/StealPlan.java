package io.s3broadcast.spi.cluster;

import io.s3broadcast.Strategy;
import java.util.Random;

/**
 * Steal (paper 000, 4.3): a node whose list runs dry takes works from the node with most left, and gives
 * half of its own unstarted works when asked; phase 2 starts once every node has reported an empty list.
 */
class StealPlan implements ClusterPlan {

    static final StealPlan INSTANCE = new StealPlan();

    StealPlan() {
    }

    @Override
    public Strategy strategy() {
        return Strategy.STEAL;
    }

    @Override
    public StealingScheduler scheduler(Random random) {
        return StealingScheduler.steal(random);
    }

    @Override
    public boolean givesWork() {
        return true;
    }

    @Override
    public boolean phase2Allowed(boolean phase1OverEverywhere) {
        return phase1OverEverywhere;
    }
}
