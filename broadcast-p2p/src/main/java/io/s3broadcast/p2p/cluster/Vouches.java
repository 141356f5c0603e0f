package io.s3broadcast.p2p.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Who vouched for which SHA-256 of each piece: this node for the pieces it read from S3 itself (the truth),
 * peers for the pieces they say they read from S3 ({@code DIGESTS}, first-hand only). A piece from a peer is
 * accepted only when it matches {@link #expected}: this node's own digest, or else the one digest every
 * vouching (trusted) peer agrees on. Not thread-safe: the run's loop only.
 */
final class Vouches {

    private final byte[][] own;
    /** Per piece, peer id to the digest it vouched for, in the order they vouched; null until the first. */
    private final List<Map<String, byte[]>> byPeer;
    /** Per peer, the pieces it vouched for (and has not had dropped). */
    private final Map<String, Integer> counts = new HashMap<>();

    Vouches(int pieceCount) {
        this.own = new byte[pieceCount][];
        this.byPeer = new ArrayList<>(pieceCount);
        for (int i = 0; i < pieceCount; i++) {
            byPeer.add(null);
        }
    }

    /** Records this node's own digest of {@code piece}, read from S3; returns the peers that vouched otherwise. */
    List<String> own(int piece, byte[] digest) {
        own[piece] = digest.clone();
        return disagreeing(piece, digest);
    }

    boolean hasOwn(int piece) {
        return own[piece] != null;
    }

    /** What a peer says about {@code piece}. */
    enum Vouch {
        /** Agrees with everyone so far (or is the first word). */
        AGREES,
        /** Contradicts this node's own S3 read: the peer lies (or its data is corrupt). */
        CONTRADICTS_OWN,
        /** Contradicts another peer's word: only S3 can tell who is right. */
        CONTRADICTS_PEER
    }

    Vouch vouch(String peer, int piece, byte[] digest) {
        if (own[piece] != null && !Arrays.equals(own[piece], digest)) {
            return Vouch.CONTRADICTS_OWN;
        }
        Map<String, byte[]> m = byPeer.get(piece);
        if (m == null) {
            m = new LinkedHashMap<>(4);
            byPeer.set(piece, m);
        }
        if (m.put(peer, digest.clone()) == null) {
            counts.merge(peer, 1, Integer::sum);
        }
        if (own[piece] != null) {
            return Vouch.AGREES;
        }
        for (byte[] d : m.values()) {
            if (!Arrays.equals(d, digest)) {
                return Vouch.CONTRADICTS_PEER;
            }
        }
        return Vouch.AGREES;
    }

    /**
     * The digest a piece from any peer must have: this node's own, or the one all vouching peers agree on;
     * null when nobody vouched yet or peers disagree (then S3 decides).
     */
    byte[] expected(int piece) {
        return expected(piece, peer -> true);
    }

    /** As {@link #expected(int)}, counting only the word of {@code trusted} peers (members, not strangers). */
    byte[] expected(int piece, Predicate<String> trusted) {
        if (own[piece] != null) {
            return own[piece];
        }
        Map<String, byte[]> m = byPeer.get(piece);
        if (m == null || m.isEmpty()) {
            return null;
        }
        byte[] first = null;
        for (Map.Entry<String, byte[]> e : m.entrySet()) {
            if (!trusted.test(e.getKey())) {
                continue;
            }
            byte[] d = e.getValue();
            if (first == null) {
                first = d;
            } else if (!Arrays.equals(first, d)) {
                return null;
            }
        }
        return first;
    }

    /** Peers disagree about {@code piece} and this node has no own digest of it. */
    boolean contested(int piece) {
        Map<String, byte[]> m = byPeer.get(piece);
        return own[piece] == null && m != null && !m.isEmpty() && expected(piece) == null;
    }

    /** The peers whose word on {@code piece} differs from {@code truth}. */
    List<String> disagreeing(int piece, byte[] truth) {
        Map<String, byte[]> m = byPeer.get(piece);
        if (m == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        m.forEach((peer, d) -> {
            if (!Arrays.equals(d, truth)) {
                out.add(peer);
            }
        });
        out.sort(null);
        return out;
    }

    /** The peers that vouched for {@code piece}, in the order they first vouched. */
    List<String> vouchers(int piece) {
        Map<String, byte[]> m = byPeer.get(piece);
        return m == null ? List.of() : new ArrayList<>(m.keySet());
    }

    /** How many pieces {@code peer} vouched for. */
    int count(String peer) {
        return counts.getOrDefault(peer, 0);
    }

    /** Forgets every digest {@code peer} vouched for (it was caught lying); returns the pieces it had vouched for. */
    BitSet drop(String peer) {
        counts.remove(peer);
        BitSet out = new BitSet();
        for (int i = 0; i < byPeer.size(); i++) {
            Map<String, byte[]> m = byPeer.get(i);
            if (m != null && m.remove(peer) != null) {
                out.set(i);
            }
        }
        return out;
    }

    /** Digests of this node's own pieces {@code [first, end)}, concatenated; every one must be known. */
    byte[] ownRun(int first, int end) {
        byte[] out = new byte[(end - first) * io.s3broadcast.spi.Sha256.BYTES];
        for (int p = first; p < end; p++) {
            System.arraycopy(own[p], 0, out, (p - first) * io.s3broadcast.spi.Sha256.BYTES, io.s3broadcast.spi.Sha256.BYTES);
        }
        return out;
    }
}
