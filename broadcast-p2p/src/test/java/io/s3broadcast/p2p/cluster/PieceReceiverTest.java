package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.s3broadcast.p2p.protocol.Goodbye;
import io.s3broadcast.p2p.protocol.Piece;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PieceReceiverTest {

    @TempDir
    Path dir;
    IntegrityFixture f;
    PieceReceiver receiver;
    /** What the receiver asked of the run, in order. */
    final List<String> calls = new ArrayList<>();
    boolean closing;

    @BeforeEach
    void setUp() throws Exception {
        f = new IntegrityFixture(dir, 8, "b", "c");
        receiver = new PieceReceiver(() -> "me", f.store, f::expected, f.vouches, f.members::contains, f.bans,
                f.disputes, f.time, f.time, new PieceReceiver.Run() {
                    @Override
                    public boolean closing() {
                        return closing;
                    }

                    @Override
                    public void failed(Throwable error) {
                        calls.add("failed " + error.getMessage());
                    }

                    @Override
                    public void downloaded(String peer, int length) {
                        calls.add("downloaded " + peer + " " + length);
                    }

                    @Override
                    public void requestFailed(String peer, int piece) {
                        calls.add("requestFailed " + peer + " " + piece);
                    }

                    @Override
                    public void stored(String peer, int piece, int length) {
                        calls.add("stored " + peer + " " + piece);
                    }

                    @Override
                    public void pump(String peer) {
                        calls.add("pump " + peer);
                    }

                    @Override
                    public void pumpAll() {
                        calls.add("pumpAll");
                    }
                });
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    /** A PIECE message with {@code bytes} and the CRC32C of {@code crcOf}. */
    static Piece piece(int index, byte[] bytes, byte[] crcOf) {
        return new Piece(index, IntegrityFixture.crc(crcOf), Unpooled.wrappedBuffer(bytes));
    }

    static Piece piece(int index, byte[] bytes) {
        return piece(index, bytes, bytes);
    }

    @Test
    void aPieceMatchingTheOwnDigestIsStoredOffTheLoop() {
        f.vouches.own(0, f.sha(0));
        Piece p = piece(0, f.truth(0));
        receiver.arrived("b", p);
        assertThat(f.store.hasPiece(0)).isFalse();
        f.settle();
        assertThat(p.refCnt()).isZero();
        assertThat(f.holdsTruth(0)).isTrue();
        assertThat(f.disputes.takenFromPeers().get(0)).isTrue();
        assertThat(calls).containsExactly("downloaded b " + IntegrityFixture.PIECE, "stored b 0", "pump b");
        assertThat(f.sentences).isEmpty();
    }

    @Test
    void aPieceMatchingWhatTheMembersVouchedForIsStored() {
        f.vouches.vouch("b", 1, f.sha(1));
        f.vouches.vouch("c", 1, f.sha(1));
        receiver.arrived("c", piece(1, f.truth(1)));
        f.settle();
        assertThat(f.holdsTruth(1)).isTrue();
        assertThat(calls).contains("stored c 1");
    }

    @Test
    void aPieceWithAWrongCrcIsAStrikeAndThePeerIsBannedAtTheLimit() {
        f.vouches.own(2, f.sha(2));
        for (int i = 0; i < 3; i++) {
            receiver.arrived("b", piece(2, f.junk(2), f.truth(2)));
            f.settle();
            assertThat(f.bans.contains("b")).isEqualTo(i == 2);
        }
        assertThat(f.store.hasPiece(2)).isFalse();
        assertThat(f.sentences).containsExactly("b " + Goodbye.Reason.PROTOCOL_ERROR);
        assertThat(f.bans.isLiar("b")).isFalse();
        assertThat(calls).containsSequence("requestFailed b 2", "pumpAll");
    }

    @Test
    void aPieceOfTheWrongLengthIsAStrike() {
        f.vouches.own(2, f.sha(2));
        byte[] shortPiece = java.util.Arrays.copyOf(f.truth(2), 10);
        receiver.arrived("b", piece(2, shortPiece));
        f.settle();
        assertThat(f.store.hasPiece(2)).isFalse();
        assertThat(calls).contains("requestFailed b 2");
        assertThat(f.bans.contains("b")).isFalse();
    }

    @Test
    void aPieceWithAMismatchingDigestUnderATrueCrcBansTheSenderAtOnce() {
        f.vouches.own(3, f.sha(3));
        receiver.arrived("b", piece(3, f.junk(3)));
        f.settle();
        assertThat(f.store.hasPiece(3)).isFalse();
        assertThat(f.bans.liars()).containsExactly("b");
        assertThat(f.sentences).containsExactly("b " + Goodbye.Reason.BAD_PIECE);
        assertThat(f.piecesReread).isZero();
    }

    @Test
    void aPieceNobodyVouchedForIsDroppedWithoutABan() {
        receiver.arrived("b", piece(4, f.truth(4)));
        f.settle();
        assertThat(f.store.hasPiece(4)).isFalse();
        assertThat(calls).containsExactly("downloaded b " + IntegrityFixture.PIECE, "requestFailed b 4", "pumpAll");
        assertThat(f.bans.contains("b")).isFalse();
    }

    @Test
    void aStrangersWordAloneMakesNoPieceAcceptable() {
        f.vouches.vouch("stranger", 4, f.sha(4));
        receiver.arrived("stranger", piece(4, f.truth(4)));
        f.settle();
        assertThat(f.store.hasPiece(4)).isFalse();
    }

    @Test
    void aDuplicateSettlesOnlyItsRequest() throws Exception {
        f.vouches.own(5, f.sha(5));
        f.put(5, f.truth(5));
        receiver.arrived("b", piece(5, f.truth(5)));
        f.settle();
        assertThat(calls).containsExactly("downloaded b " + IntegrityFixture.PIECE, "requestFailed b 5", "pump b");
        assertThat(f.disputes.takenFromPeers().get(5)).isFalse();
    }

    @Test
    void aMemberRelayingOtherBytesThanAVoucherIsJudgedByS3AndTheLyingVoucherBanned() {
        // "c" vouched for junk; "b" relays S3's true bytes: S3 sides with "b".
        f.vouches.vouch("c", 6, f.sha(f.junk(6)));
        receiver.arrived("b", piece(6, f.truth(6)));
        f.settle();
        assertThat(f.reread.get(6)).isTrue();
        assertThat(f.bans.liars()).containsExactly("c");
        assertThat(f.bans.contains("b")).isFalse();
        assertThat(f.holdsTruth(6)).isTrue();
    }

    @Test
    void aMemberRelayingJunkAgainstAnHonestVoucherIsBannedAfterS3Agrees() {
        f.vouches.vouch("c", 6, f.sha(6));
        receiver.arrived("b", piece(6, f.junk(6)));
        f.settle();
        assertThat(f.reread.get(6)).isTrue();
        assertThat(f.bans.liars()).containsExactly("b");
        assertThat(f.holdsTruth(6)).isTrue();
    }

    @Test
    void aPieceArrivingWhileTheRunStopsIsReleasedAndIgnored() {
        f.vouches.own(7, f.sha(7));
        Piece p = piece(7, f.truth(7));
        receiver.arrived("b", p);
        closing = true;
        f.settle();
        assertThat(p.refCnt()).isZero();
        assertThat(calls).isEmpty();
    }
}
