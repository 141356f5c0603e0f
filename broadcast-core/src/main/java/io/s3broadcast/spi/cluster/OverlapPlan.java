package io.s3broadcast.spi.cluster;

import io.s3broadcast.Strategy;

/**
 * Overlap (the paper's future work): phase 1 as in {@link StealPlan}, and phase 2 from the start: a node
 * requests from peers every piece it is not fetching from S3 itself, as soon as a peer has it.
 */
final class OverlapPlan extends StealPlan {

    static final OverlapPlan INSTANCE = new OverlapPlan();

    private OverlapPlan() {
    }

    @Override
    public Strategy strategy() {
        return Strategy.OVERLAP;
    }

    @Override
    public boolean phase2Allowed(boolean phase1OverEverywhere) {
        return true;
    }
}
