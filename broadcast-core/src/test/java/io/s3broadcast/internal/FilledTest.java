package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ObjectInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a fill came to: the verdict on the file in the light of the repairs, and what the result says of the run. */
class FilledTest {

    private static final String MISMATCH = "s3://b/k (ETag \"e\") on disk has full-object CRC32 x, but S3 says y";

    private final ObjectInfo info = new ObjectInfo("b", "k", 100, "\"e\"", Optional.empty());
    private final ClusterRun.Outcome outcome = new ClusterRun.Outcome(60, Duration.ofSeconds(2), Duration.ofSeconds(1),
            3, 4);

    @Test
    void aFileThatPassedSaysWhetherAWholeObjectDigestWasChecked() {
        Filled filled = new Filled(info, null);
        assertThat(filled.checked(new ObjectVerifier.Result(true, null))).isTrue();
        assertThat(filled.checked(new ObjectVerifier.Result(false, null))).isFalse();
    }

    @Test
    void aMismatchWithNothingReadAgainIsThrownAsItIs() {
        Filled filled = new Filled(info, outcome).with(new ClusterRun.Repair(0, 0, List.of("n2")));
        assertThatThrownBy(() -> filled.checked(new ObjectVerifier.Result(true, MISMATCH)))
                .isExactlyInstanceOf(BroadcastException.ChecksumMismatch.class)
                .hasMessage(MISMATCH + ": fetch again");
    }

    @Test
    void aMismatchAfterEveryPeerPieceWasReadAgainSaysSoAndWhatTheRepairDid() {
        Filled filled = new Filled(info, outcome).with(new ClusterRun.Repair(12, 2, List.of("n2", "n5")));
        assertThatThrownBy(() -> filled.checked(new ObjectVerifier.Result(true, MISMATCH)))
                .isExactlyInstanceOf(BroadcastException.ChecksumMismatch.class)
                .hasMessage(MISMATCH + ": fetch again even after every piece taken from peers was read again from S3"
                        + " (2 replaced, banned: [n2, n5]); the object may have changed under its ETag");
    }

    @Test
    void aClusterRunsNumbersGoIntoTheResult() {
        Filled filled = new Filled(info, outcome).with(new ClusterRun.Repair(12, 2, List.of("n5")));
        CompletedFetch done = filled.describe(result()).build();
        assertThat(done.bytesFromPeers()).isEqualTo(60);
        assertThat(done.phase1()).isEqualTo(Duration.ofSeconds(2));
        assertThat(done.phase2()).isEqualTo(Duration.ofSeconds(1));
        assertThat(done.piecesStolen()).isEqualTo(3);
        assertThat(done.piecesRepaired()).isEqualTo(2);
        assertThat(done.bannedPeers()).containsExactly("n5");
    }

    @Test
    void theFlatTreesResultHasNoRunToTellOf() {
        CompletedFetch done = new Filled(info, null).describe(result()).build();
        assertThat(done.bytesFromPeers()).isZero();
        assertThat(done.phase1()).isEqualTo(done.duration());
        assertThat(done.phase2()).isZero();
        assertThat(done.piecesRepaired()).isZero();
        assertThat(done.bannedPeers()).isEmpty();
    }

    private static CompletedFetch.Builder result() {
        return CompletedFetch.builder().path(Path.of("/tmp/k")).bucket("b").key("k").eTag("\"e\"").size(100)
                .strategy(Strategy.OVERLAP).duration(Duration.ofSeconds(4));
    }
}
