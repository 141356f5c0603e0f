package io.s3broadcast.spi.cluster;

import io.s3broadcast.Strategy;

/**
 * The piece size of a fetch: the one configured, else computed from the object's size and the nodes expected.
 *
 * <p>A cluster of {@code N} expected nodes gets about {@value #PIECES_PER_NODE} pieces per node's share: the largest
 * power of two at most {@code size / (N x PIECES_PER_NODE)}, between {@link #MIN_COMPUTED} and {@link #DEFAULT}. More
 * pieces spread through the fleet sooner (a node can pass a piece on only once it holds it whole) and leave a
 * shorter tail per connection when a node uploads to many peers at once: a 64 MiB object in 1 MiB pieces is 64 of
 * them for 16 nodes, each crossing a connection of 1/16 of a 2.5 MB/s link in ~7 s. Measured in docs/results.md: on
 * the emulated fleet it wins where the nodes' CPU does not bind (N = 4 at 10 MB/s, N = 8 at 2.5 MB/s) and loses
 * where it does (N = 8 at 10 MB/s, eight node JVMs on two cores). Every node of a group must use the same piece size,
 * so it may depend only on what every node is told alike: {@code expectNodes}, or the length of a static registry's
 * list (the caller passes it as the nodes expected). A cluster whose size is not known in advance (a registry that
 * nodes join, no {@code expectNodes}) is sized from the object alone, as for {@value #ASSUMED_NODES} nodes
 * (measured on the fleet without {@code expectNodes}, N = 8 at 2.5 MB/s: 1 MiB pieces 1.41-1.55 T\*, docs/results.md
 * session 20). A flat-tree fetch keeps {@link #DEFAULT}.
 */
public final class PieceSizing {

    /** The piece size unless computed smaller: 1 MiB. */
    public static final int DEFAULT = 1 << 20;
    /** The smallest computed piece: 256 KiB (messages, digests and disk writes per piece stay few). */
    public static final int MIN_COMPUTED = 256 << 10;
    /** Pieces a node's share should hold at least. */
    public static final int PIECES_PER_NODE = 32;
    /** The cluster size assumed when it is not known in advance. */
    public static final int ASSUMED_NODES = 8;

    private PieceSizing() {
    }

    /**
     * @param configured the piece size set (builder, property or environment), or null
     * @param objectSize the object's size in bytes
     * @param strategy the fetch's strategy
     * @param expectNodes the nodes the cluster expects (0: not known in advance, sized as for {@link #ASSUMED_NODES})
     */
    public static int of(Integer configured, long objectSize, Strategy strategy, int expectNodes) {
        if (configured != null) {
            return configured;
        }
        if (!strategy.isCluster() || expectNodes == 1) {
            return DEFAULT;
        }
        int nodes = expectNodes > 1 ? expectNodes : ASSUMED_NODES;
        long target = objectSize / ((long) nodes * PIECES_PER_NODE);
        if (target >= DEFAULT) {
            return DEFAULT;
        }
        if (target <= MIN_COMPUTED) {
            return MIN_COMPUTED;
        }
        return Integer.highestOneBit((int) target);
    }
}
