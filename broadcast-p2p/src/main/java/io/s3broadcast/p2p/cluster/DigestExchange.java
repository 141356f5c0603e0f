package io.s3broadcast.p2p.cluster;

import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.RelayedDigests;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.Sha256;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HexFormat;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * The {@code DIGESTS} rules: this node vouches for the pieces it read from S3 (first-hand only, signed with
 * the group secret), takes peers' word for theirs ({@link Vouches}), and says which digest a piece from a peer
 * must match ({@link #expected}). A forged list, or a digest that contradicts this node's own S3 read, bans
 * the sender; members who contradict each other go to S3 ({@link Disputes}); a stranger (a peer not in the
 * registry) that contradicts a member is banned on the member's word. The run's loop only.
 */
final class DigestExchange {

    /** The longest node id, as a stand-in when lists are cut to leave room for their origin's id. */
    private static final String ORIGIN_ROOM = "x".repeat(255);

    /** Signs a run of digests with the group secret (the run's pipeline). */
    @FunctionalInterface
    interface Signer {
        Digests sign(int first, byte[] digests);
    }

    private final int pieceCount;
    private final PieceStore store;
    private final Vouches vouches;
    private final Predicate<String> members;
    private final PieceServing serving;
    private final Signer signer;
    private final BiPredicate<Digests, String> macMatches;
    private final Disputes disputes;

    /**
     * @param members    the peers in the registry: only their word makes a piece acceptable
     * @param serving    the digest this node announces for what it read (a test may make it lie)
     * @param macMatches whether a {@code DIGESTS} list's MAC is the one the given peer must make
     */
    DigestExchange(PieceStore store, Vouches vouches, Predicate<String> members, PieceServing serving, Signer signer,
            BiPredicate<Digests, String> macMatches, Disputes disputes) {
        this.pieceCount = store.layout().pieceCount();
        this.store = store;
        this.vouches = vouches;
        this.members = members;
        this.serving = serving;
        this.signer = signer;
        this.macMatches = macMatches;
        this.disputes = disputes;
    }

    /**
     * The digest a piece from a peer must match: this node's own, or the one its members that vouched for it
     * agree on; null when there is none. A stranger's word never makes a piece acceptable: it can only
     * contradict, and be caught.
     */
    byte[] expected(int piece) {
        return vouches.expected(piece, members);
    }

    /**
     * This node's first-hand digests of every piece it read from S3 and holds, signed, in runs that fit a
     * frame of {@code maxFrameLength} (the peer's limit).
     */
    List<Digests> ownDigests(int maxFrameLength) {
        List<Digests> out = new ArrayList<>();
        // Room for the origin id, so a peer can pass the list on unchanged (RelayedDigests).
        int max = Math.max(1, RelayedDigests.maxDigests(maxFrameLength, ORIGIN_ROOM));
        int p = 0;
        while (p < pieceCount) {
            while (p < pieceCount && !(vouches.hasOwn(p) && store.hasPiece(p))) {
                p++;
            }
            int first = p;
            while (p < pieceCount && p - first < max && vouches.hasOwn(p) && store.hasPiece(p)) {
                p++;
            }
            if (p > first) {
                out.add(signer.sign(first, outbound(first, p)));
            }
        }
        return out;
    }

    private byte[] outbound(int first, int end) {
        byte[] out = vouches.ownRun(first, end);
        for (int p = first; p < end; p++) {
            byte[] d = serving.digest(store, p, Arrays.copyOfRange(out, (p - first) * Sha256.BYTES, (p - first + 1) * Sha256.BYTES));
            System.arraycopy(d, 0, out, (p - first) * Sha256.BYTES, Sha256.BYTES);
        }
        return out;
    }

    /**
     * This node read {@code piece} from S3 and stored it: its digest becomes the truth (peers that vouched
     * otherwise are convicted). Returns the digest.
     */
    byte[] ownRead(int piece) {
        byte[] own = store.sha256(piece);
        for (String liar : vouches.own(piece, own)) {
            disputes.convict(liar, String.format("vouched for piece %d with a SHA-256 other than S3's %s", piece, hex(own)));
        }
        return own;
    }

    /** The signed {@code DIGESTS} announcing this node's read of {@code piece} (digest {@code own}). */
    Digests announce(int piece, byte[] own) {
        return signer.sign(piece, serving.digest(store, piece, own));
    }

    /**
     * {@code peer} vouches for pieces it read from S3. Returns false when it was banned for it (a forged MAC,
     * a digest against this node's own read, or a stranger against a member), true when the word was taken and
     * new requests may follow.
     */
    boolean received(String peer, Digests d) {
        if (!macMatches.test(d, peer)) {
            disputes.convict(peer, String.format("sent DIGESTS for pieces [%d, %d) whose MAC does not match the group"
                    + " secret (forged, or altered on the way: use TLS on untrusted links)", d.first(), d.first() + d.count()));
            return false;
        }
        return vouched(peer, d);
    }

    /**
     * {@code peer} passed on {@code origin}'s vouch ({@link RelayedDigests}, a bounded overlay): taken as
     * {@code origin}'s word, its MAC checked against {@code origin}. Returns false when something was banned for
     * it (a MAC that is not {@code origin}'s bans {@code peer}, who passed on what it should have checked; a lie
     * bans {@code origin}), true when the word was taken.
     */
    boolean relayed(String peer, RelayedDigests r) {
        Digests d = r.digests();
        if (!macMatches.test(d, r.origin())) {
            disputes.convict(peer, String.format("passed on DIGESTS of %s for pieces [%d, %d) whose MAC is not %s's",
                    r.origin(), d.first(), d.first() + d.count(), r.origin()));
            return false;
        }
        return vouched(r.origin(), d);
    }

    /** {@code peer}'s word on {@code d}'s pieces, its MAC checked. */
    private boolean vouched(String peer, Digests d) {
        BitSet contested = new BitSet();
        for (int i = 0; i < d.count(); i++) {
            int piece = d.first() + i;
            byte[] digest = d.digest(i);
            switch (vouches.vouch(peer, piece, digest)) {
                case CONTRADICTS_OWN -> {
                    disputes.convict(peer, String.format("vouched for piece %d with SHA-256 %s, but this node read %s"
                            + " from S3", piece, hex(digest), hex(expected(piece))));
                    return false;
                }
                case CONTRADICTS_PEER -> {
                    // Members' disputes go to S3; a stranger that contradicts a member is banned on the member's
                    // word, so a stranger cannot make this node read pieces again from S3.
                    boolean senderIsMember = members.test(peer);
                    boolean memberDisagrees = false;
                    for (String other : vouches.disagreeing(piece, digest)) {
                        if (members.test(other)) {
                            memberDisagrees = true;
                        } else if (senderIsMember) {
                            disputes.convict(other, String.format("vouched for piece %d with a SHA-256 other than"
                                    + " member %s's", piece, peer));
                        }
                    }
                    if (memberDisagrees && !senderIsMember) {
                        disputes.convict(peer, String.format("vouched for piece %d with SHA-256 %s, but a member read %s"
                                + " from S3", piece, hex(digest), hex(expected(piece))));
                        return false;
                    }
                    if (memberDisagrees) {
                        contested.set(piece);
                    }
                }
                case AGREES -> { }
            }
        }
        disputes.recheck(contested);
        return true;
    }

    /** The start of a digest, for the log. */
    static String hex(byte[] digest) {
        return digest == null ? "(none)" : HexFormat.of().formatHex(digest, 0, 8) + "…";
    }
}
