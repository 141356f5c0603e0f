package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.p2p.protocol.Goodbye;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DisputesTest {

    @TempDir
    Path dir;
    IntegrityFixture f;

    @BeforeEach
    void setUp() throws Exception {
        f = new IntegrityFixture(dir, 8, "b", "c");
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    static BitSet bits(int... pieces) {
        BitSet b = new BitSet();
        for (int p : pieces) {
            b.set(p);
        }
        return b;
    }

    @Test
    void twoMembersDisagreeS3DecidesTheLiarIsBannedAndItsPiecesReadAgain() throws Exception {
        // "c" lies about pieces 1 and 2; piece 2 was taken on its word alone.
        f.vouches.vouch("b", 1, f.sha(1));
        f.vouches.vouch("c", 1, f.sha(f.junk(1)));
        f.vouches.vouch("c", 2, f.sha(f.junk(2)));
        f.put(2, f.junk(2));
        f.disputes.takenFromPeer(2);

        CompletableFuture<Void> settled = f.disputes.recheck(bits(1));
        assertThat(f.disputes.isChecking(1)).isTrue();
        f.settle();

        assertThat(settled).isCompleted();
        assertThat(f.bans.liars()).containsExactly("c");
        assertThat(f.sentences).containsExactly("c " + Goodbye.Reason.BAD_PIECE);
        // Piece 1 was missing: S3's bytes filled it; piece 2, taken on the liar's word, was read again and replaced.
        assertThat(f.added).containsExactly(1);
        assertThat(f.holdsTruth(1)).isTrue();
        assertThat(f.holdsTruth(2)).isTrue();
        assertThat(f.reread.stream().toArray()).containsExactly(1, 2);
        assertThat(f.disputes.report().piecesChecked()).isEqualTo(2);
        assertThat(f.disputes.report().piecesRepaired()).isEqualTo(1);
        assertThat(f.disputes.report().bannedPeers()).containsExactly("c");
        assertThat(f.disputes.idle()).isTrue();
        assertThat(f.disputes.takenFromPeers().isEmpty()).isTrue();
        assertThat(f.checksEnded).isPositive();
        assertThat(f.failures).isEmpty();
    }

    @Test
    void aPieceUnderACheckIsQuarantinedUntilS3Answers() throws Exception {
        f.s3Gate = new CompletableFuture<>();
        f.put(3, f.truth(3));
        CompletableFuture<Void> settled = f.disputes.recheck(bits(3));
        f.settle();
        assertThat(f.disputes.quarantine()).containsExactly(3);
        assertThat(settled).isNotDone();

        f.s3Gate.complete(null);
        f.settle();
        assertThat(settled).isCompleted();
        assertThat(f.disputes.quarantine()).isEmpty();
        assertThat(f.disputes.report().piecesRepaired()).isZero();
        assertThat(f.added).isEmpty();
        assertThat(f.bans.liars()).isEmpty();
    }

    @Test
    void aPieceAlreadyUnderACheckIsNotReadTwiceAndTheLaterCallWaitsForIt() {
        f.s3Gate = new CompletableFuture<>();
        CompletableFuture<Void> first = f.disputes.recheck(bits(4));
        CompletableFuture<Void> second = f.disputes.recheck(bits(4));
        f.settle();
        assertThat(f.piecesReread).isEqualTo(1);
        assertThat(second).isNotDone();
        f.s3Gate.complete(null);
        f.settle();
        assertThat(first).isCompleted();
        assertThat(second).isCompleted();
    }

    @Test
    void aConvictedPeersPiecesThatMatchTheRemainingWordAreNotReadAgain() throws Exception {
        // "b" and "c" vouched for piece 5 alike and it came right: convicting "c" leaves "b"'s word, no re-read.
        f.vouches.vouch("b", 5, f.sha(5));
        f.vouches.vouch("c", 5, f.sha(5));
        f.put(5, f.truth(5));
        f.disputes.takenFromPeer(5);
        f.disputes.convict("c", "lied elsewhere");
        f.settle();
        assertThat(f.piecesReread).isZero();
        assertThat(f.disputes.convict("c", "again")).isCompleted();
        assertThat(f.sentences).containsExactly("c " + Goodbye.Reason.BAD_PIECE);
    }

    @Test
    void aFailedReadFromS3FailsTheRunAndTheCheck() {
        f.s3Gate = CompletableFuture.failedFuture(new IllegalStateException("S3 is down"));
        CompletableFuture<Void> settled = f.disputes.recheck(bits(0));
        f.settle();
        assertThat(settled).isCompletedExceptionally();
        assertThat(f.failures).hasSize(1);
        assertThat(f.failures.get(0)).hasMessageContaining("cannot read pieces of test-object again from S3");
        assertThat(f.disputes.idle()).isTrue();
    }
}
