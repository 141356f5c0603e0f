package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.p2p.protocol.Digests;
import io.s3broadcast.p2p.protocol.FrameLimits;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.RelayedDigests;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DigestExchangeTest {

    /** The MAC a fake signer puts on: the one the fake check accepts. */
    static final byte[] GOOD_MAC = new byte[Digests.MAC_BYTES];
    static final byte[] FORGED_MAC = filled(Digests.MAC_BYTES, 9);

    @TempDir
    Path dir;
    IntegrityFixture f;
    DigestExchange exchange;

    @BeforeEach
    void setUp() throws Exception {
        f = new IntegrityFixture(dir, 8, "b", "c");
        exchange = new DigestExchange(f.store, f.vouches, f.members::contains, PieceServing.HONEST,
                (first, d) -> new Digests(first, d, GOOD_MAC),
                (d, peer) -> d.equals(new Digests(d.first(), d.bytes(), GOOD_MAC)), f.disputes);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    static byte[] filled(int n, int b) {
        byte[] x = new byte[n];
        Arrays.fill(x, (byte) b);
        return x;
    }

    /** A DIGESTS list of pieces {@code first, first + 1, ...} with the given digests. */
    static Digests list(int first, byte[] mac, byte[]... digests) {
        byte[] all = new byte[digests.length * Digests.DIGEST_BYTES];
        for (int i = 0; i < digests.length; i++) {
            System.arraycopy(digests[i], 0, all, i * Digests.DIGEST_BYTES, Digests.DIGEST_BYTES);
        }
        return new Digests(first, all, mac);
    }

    @Test
    void ownDigestsGoOutInRunsOfHeldPiecesThatFitThePeersFrame() throws Exception {
        for (int p : new int[] {0, 1, 2, 4}) {
            f.put(p, f.truth(p));
            assertThat(exchange.ownRead(p)).isEqualTo(f.sha(p));
        }
        f.put(5, f.truth(5)); // stored from a peer: not first-hand, not vouched for
        // Room for an origin id of 255 bytes and its length, so a peer can pass a list on (RELAYED_DIGESTS).
        int twoPerFrame = FrameLimits.TYPE_BYTES + 8 + Digests.MAC_BYTES + 2 * Digests.DIGEST_BYTES + 1 + 255;
        List<Digests> out = exchange.ownDigests(twoPerFrame);
        assertThat(out).extracting(Digests::first).containsExactly(0, 2, 4);
        assertThat(out).extracting(Digests::count).containsExactly(2, 1, 1);
        assertThat(out.get(0).digest(1)).isEqualTo(f.sha(1));
        assertThat(exchange.announce(4, f.sha(4))).isEqualTo(out.get(2));
    }

    /** A MAC only {@code id} makes, in the relay tests. */
    private static byte[] macOf(String id) {
        return filled(Digests.MAC_BYTES, id.hashCode());
    }

    @Test
    void aRelayedListIsTheOriginsWordCheckedAgainstTheOriginsMac() throws Exception {
        DigestExchange relaying = new DigestExchange(f.store, f.vouches, f.members::contains, PieceServing.HONEST,
                (first, d) -> new Digests(first, d, macOf("a")),
                (d, id) -> d.equals(new Digests(d.first(), d.bytes(), macOf(id))), f.disputes);
        // c passes on b's list: b's word, though b is not this node's peer.
        assertThat(relaying.relayed("c", new RelayedDigests("b", list(3, macOf("b"), f.sha(3))))).isTrue();
        assertThat(relaying.expected(3)).isEqualTo(f.sha(3));
        assertThat(f.bans.liars()).isEmpty();

        // A list passed on with a MAC that is not its origin's: the one that passed it on is banned.
        assertThat(relaying.relayed("c", new RelayedDigests("b", list(4, macOf("c"), f.sha(4))))).isFalse();
        assertThat(f.bans.liars()).containsExactly("c");
        assertThat(relaying.expected(4)).isNull();

        // The origin's lie, passed on by an honest peer, bans the origin.
        f.put(5, f.truth(5));
        relaying.ownRead(5);
        assertThat(relaying.relayed("d", new RelayedDigests("b", list(5, macOf("b"), f.sha(f.junk(5)))))).isFalse();
        assertThat(f.bans.liars()).containsExactlyInAnyOrder("c", "b");
    }

    @Test
    void aForgedListBansTheSender() {
        assertThat(exchange.received("b", list(0, FORGED_MAC, f.sha(0)))).isFalse();
        assertThat(f.bans.liars()).containsExactly("b");
        assertThat(exchange.expected(0)).isNull();
    }

    @Test
    void aMembersWordMakesAPieceExpected() {
        assertThat(exchange.received("b", list(3, GOOD_MAC, f.sha(3), f.sha(4)))).isTrue();
        assertThat(exchange.expected(3)).isEqualTo(f.sha(3));
        assertThat(exchange.expected(4)).isEqualTo(f.sha(4));
        assertThat(f.piecesReread).isZero();
    }

    @Test
    void aDigestAgainstTheOwnS3ReadBansTheSender() throws Exception {
        f.put(1, f.truth(1));
        exchange.ownRead(1);
        assertThat(exchange.received("b", list(1, GOOD_MAC, f.sha(f.junk(1))))).isFalse();
        assertThat(f.bans.liars()).containsExactly("b");
        assertThat(f.sentences).containsExactly("b " + Goodbye.Reason.BAD_PIECE);
    }

    @Test
    void theOwnS3ReadConvictsWhoVouchedOtherwise() throws Exception {
        exchange.received("c", list(2, GOOD_MAC, f.sha(f.junk(2))));
        f.put(2, f.truth(2));
        exchange.ownRead(2);
        assertThat(f.bans.liars()).containsExactly("c");
        assertThat(exchange.expected(2)).isEqualTo(f.sha(2));
    }

    @Test
    void membersThatDisagreeGoToS3WhichBansTheLiar() {
        exchange.received("b", list(6, GOOD_MAC, f.sha(6)));
        assertThat(exchange.received("c", list(6, GOOD_MAC, f.sha(f.junk(6))))).isTrue();
        assertThat(exchange.expected(6)).isNull();
        f.settle();
        assertThat(f.reread.get(6)).isTrue();
        assertThat(f.bans.liars()).containsExactly("c");
        assertThat(exchange.expected(6)).isEqualTo(f.sha(6));
    }

    @Test
    void aStrangerContradictingAMemberIsBannedWithoutAReadFromS3() {
        exchange.received("b", list(6, GOOD_MAC, f.sha(6)));
        assertThat(exchange.received("stranger", list(6, GOOD_MAC, f.sha(f.junk(6))))).isFalse();
        f.settle();
        assertThat(f.bans.liars()).containsExactly("stranger");
        assertThat(f.piecesReread).isZero();
        assertThat(exchange.expected(6)).isEqualTo(f.sha(6));
    }

    @Test
    void aMemberContradictingAStrangerGetsTheStrangerBanned() {
        exchange.received("stranger", list(7, GOOD_MAC, f.sha(f.junk(7))));
        assertThat(exchange.expected(7)).isNull();
        assertThat(exchange.received("b", list(7, GOOD_MAC, f.sha(7)))).isTrue();
        f.settle();
        assertThat(f.bans.liars()).containsExactly("stranger");
        assertThat(f.piecesReread).isZero();
        assertThat(exchange.expected(7)).isEqualTo(f.sha(7));
    }
}
