package io.s3broadcast.spi.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * How many piece requests phase 2 keeps outstanding to one peer: the pipeline depth. Too shallow and the
 * peer's link idles between a piece and the next request; too deep and pieces wait in a slow peer's queue
 * that a faster peer could have sent. {@link RequestScheduler} asks it per peer with the rate the peer
 * delivered at. Implementations are pure functions of their arguments.
 */
public interface RequestDepth {

    /**
     * Requests to keep outstanding to a peer.
     *
     * @param piecesPerSecond pieces per second the peer delivered to this node over the rate window
     * @param measured false until the peer delivered a piece (then the rate means nothing yet)
     */
    int depth(double piecesPerSecond, boolean measured);

    /** Always {@code depth}, whatever the rate (the scheduler's behaviour before depths adapted). */
    static RequestDepth fixed(int depth) {
        if (depth <= 0) {
            throw new IllegalArgumentException("depth must be > 0, was " + depth);
        }
        return new RequestDepth() {
            @Override
            public int depth(double piecesPerSecond, boolean measured) {
                return depth;
            }

            @Override
            public String toString() {
                return "fixed(" + depth + ")";
            }
        };
    }

    /**
     * Enough requests to cover {@code queueTime} of the peer's measured rate, libtorrent-style:
     * {@code ceil(piecesPerSecond * queueTime)} within {@code [floor, cap]}; {@code initial} (also within
     * them) until the peer delivered a piece. A queue time well above a round trip keeps the peer's link
     * busy whatever the latency; the cap bounds what one peer holds (and is the most a peer serves one
     * requester at once, so it must not exceed the peers' {@code maxRequestsPerPeer}).
     */
    static RequestDepth adaptive(Duration queueTime, int floor, int initial, int cap) {
        Objects.requireNonNull(queueTime, "queueTime");
        if (queueTime.isNegative() || queueTime.isZero()) {
            throw new IllegalArgumentException("queueTime must be > 0, was " + queueTime);
        }
        if (floor <= 0 || cap < floor) {
            throw new IllegalArgumentException("need 0 < floor <= cap, was floor " + floor + ", cap " + cap);
        }
        double seconds = queueTime.toNanos() / 1e9;
        int start = Math.max(floor, Math.min(cap, initial));
        return new RequestDepth() {
            @Override
            public int depth(double piecesPerSecond, boolean measured) {
                if (!measured) {
                    return start;
                }
                double want = Math.ceil(piecesPerSecond * seconds);
                return (int) Math.max(floor, Math.min(cap, want));
            }

            @Override
            public String toString() {
                return "adaptive(" + queueTime + ", " + floor + ".." + cap + ", initial " + start + ")";
            }
        };
    }
}
