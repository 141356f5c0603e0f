package io.s3broadcast.spi.cluster;

import java.util.BitSet;

/**
 * The rule of {@link RequestScheduler} that keeps a sequential digest fed: the candidates among the
 * {@code window} pieces from the lowest piece this node lacks come first, then the rest, each part in the order
 * of the rule it wraps. A single-part upload's ETag is the MD5 of the whole object, hashed from the start as
 * far as the pieces present reach; in plain rarest-first order that prefix barely moves until the last pieces,
 * so the whole object is hashed after the last piece lands (on a shared machine, by every node at once). With
 * the window, the prefix follows the transfer; rarest first inside the window keeps the peers' pieces diverse.
 * Once every piece still missing lies inside the window (the end of the transfer, when every piece has many
 * holders), the lowest candidates come first: in rarest-first order the last pieces to land were spread over the
 * whole window, which was left to hash after the last piece (at N = 16, 1 GiB: a median of 148 MiB a node, 12 MiB
 * with the lowest first; docs/results.md, session 45). A window of 0 is plain order. Not thread-safe: the scheduler
 * holds its lock.
 */
final class FrontWindow {

    private final int window;

    /** @param window pieces from the lowest missing one that come first; 0 for none */
    FrontWindow(int window) {
        if (window < 0) {
            throw new IllegalArgumentException("window must be >= 0, was " + window);
        }
        this.window = window;
    }

    /**
     * Up to {@code limit} of {@code candidates}: those in {@code [front, front + window)} first, each part in
     * {@code order}; once every missing piece lies in the window ({@code lastMissing < front + window}), the
     * lowest candidates first. Does not modify {@code candidates}.
     *
     * @param front the lowest piece this node lacks
     * @param lastMissing the highest piece this node lacks
     */
    int[] select(BitSet candidates, int front, int lastMissing, int limit, CandidateOrder order) {
        if (window == 0) {
            return order.select(candidates, limit);
        }
        int end = (int) Math.min((long) front + window, Integer.MAX_VALUE);
        if (lastMissing < end) {
            return candidates.stream().limit(limit).toArray();
        }
        BitSet inside = candidates.get(0, end);
        inside.clear(0, front);
        BitSet rest = (BitSet) candidates.clone();
        rest.andNot(inside);
        return order.firstThenRest(inside, rest, limit);
    }
}
