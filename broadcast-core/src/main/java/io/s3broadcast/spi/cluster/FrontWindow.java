package io.s3broadcast.spi.cluster;

import java.util.BitSet;

/**
 * The rule of {@link RequestScheduler} that keeps a sequential digest fed: the candidates among the
 * {@code window} pieces from the lowest piece this node lacks come first, then the rest, each part in the order
 * of the rule it wraps. A single-part upload's ETag is the MD5 of the whole object, hashed from the start as
 * far as the pieces present reach; in plain rarest-first order that prefix barely moves until the last pieces,
 * so the whole object is hashed after the last piece lands (on a shared machine, by every node at once). With
 * the window, the prefix follows the transfer and at most about a window is left to hash at the end; rarest
 * first inside the window keeps the peers' pieces diverse. A window of 0 is plain order. Not thread-safe: the
 * scheduler holds its lock.
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
     * {@code order}. Does not modify {@code candidates}.
     *
     * @param front the lowest piece this node lacks
     */
    int[] select(BitSet candidates, int front, int limit, CandidateOrder order) {
        if (window == 0) {
            return order.select(candidates, limit);
        }
        int end = (int) Math.min((long) front + window, Integer.MAX_VALUE);
        BitSet inside = candidates.get(0, end);
        inside.clear(0, front);
        BitSet rest = (BitSet) candidates.clone();
        rest.andNot(inside);
        return order.firstThenRest(inside, rest, limit);
    }
}
