package io.s3broadcast.p2p.cluster;

/** Which node of a pair of members dials the other ({@link Dialer}): so a pair has at most one connection. */
final class DialPairs {

    private DialPairs() {
    }

    /**
     * Whether {@code self} is the one of the pair {@code (self, other)} that dials: a hash of the two ids, the same
     * on both sides, so each node dials about half the others (not the smaller id always: the node with the
     * largest id would then dial nobody and wait for everyone).
     */
    static boolean dials(String self, String other) {
        int c = self.compareTo(other);
        if (c == 0) {
            return false;
        }
        String lo = c < 0 ? self : other;
        String hi = c < 0 ? other : self;
        long h = lo.hashCode() * 0x9E3779B97F4A7C15L + hi.hashCode();
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        boolean loDials = (h & 1) == 0;
        return loDials == (c < 0);
    }
}
