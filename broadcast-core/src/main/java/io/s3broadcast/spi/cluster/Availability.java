package io.s3broadcast.spi.cluster;

import io.s3broadcast.spi.Bitfield;
import java.util.BitSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which connected peers hold which pieces, and for each piece how many do (its availability), kept from
 * the peers' bitfields, haves and departures. Not thread-safe: {@link RequestScheduler} guards it.
 */
final class Availability {

    private static final BitSet NONE = new BitSet();

    private final int pieceCount;
    private final int[] counts;
    private final Map<String, BitSet> peers = new TreeMap<>();

    Availability(int pieceCount) {
        if (pieceCount < 0) {
            throw new IllegalArgumentException("pieceCount must be >= 0, was " + pieceCount);
        }
        this.pieceCount = pieceCount;
        this.counts = new int[pieceCount];
    }

    int pieceCount() {
        return pieceCount;
    }

    /** How many connected peers hold {@code piece}. */
    int count(int piece) {
        return counts[piece];
    }

    boolean has(String peer, int piece) {
        BitSet b = peers.get(peer);
        return b != null && b.get(piece);
    }

    /** The pieces {@code peer} holds; empty for an unknown peer. A live view: do not modify. */
    BitSet pieces(String peer) {
        return peers.getOrDefault(peer, NONE);
    }

    Set<String> peers() {
        return peers.keySet();
    }

    /** {@code peer} sent its bitfield: it replaces what was known of the peer. */
    void bitfield(String peer, Bitfield bitfield) {
        Objects.requireNonNull(peer, "peer");
        if (bitfield.size() != pieceCount) {
            throw new IllegalArgumentException("bitfield of " + bitfield.size() + " pieces, object has " + pieceCount);
        }
        leave(peer);
        BitSet b = new BitSet(pieceCount);
        for (int p = bitfield.nextSet(0); p >= 0; p = bitfield.nextSet(p + 1)) {
            b.set(p);
            counts[p]++;
        }
        peers.put(peer, b);
    }

    /** {@code peer} announced {@code piece}; returns true when it was new. */
    boolean have(String peer, int piece) {
        Objects.requireNonNull(peer, "peer");
        if (piece < 0 || piece >= pieceCount) {
            throw new IndexOutOfBoundsException("piece " + piece + " outside [0, " + pieceCount + ")");
        }
        BitSet b = peers.computeIfAbsent(peer, k -> new BitSet(pieceCount));
        if (b.get(piece)) {
            return false;
        }
        b.set(piece);
        counts[piece]++;
        return true;
    }

    /** {@code peer} left: its pieces no longer count. */
    void leave(String peer) {
        BitSet b = peers.remove(peer);
        if (b != null) {
            for (int p = b.nextSetBit(0); p >= 0; p = b.nextSetBit(p + 1)) {
                counts[p]--;
            }
        }
    }
}
