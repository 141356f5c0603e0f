package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.Broadcast;
import io.s3broadcast.BroadcastException;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Feature;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import io.s3broadcast.testkit.proxy.Fault;
import io.s3broadcast.testkit.proxy.FaultProxy;
import io.s3broadcast.testkit.proxy.Rule;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fetch that stopped part way resumes: the next fetch of the same object to the same destination reads from
 * S3 only the pieces the first did not store, and the object is byte-exact; a changed object starts over.
 */
@RealS3
class ResumeIT {

    private static final int MIB = 1 << 20;
    private static final long SIZE = 24L * MIB + 4321;
    /** The first fetch stores the pieces before this offset, then S3 answers every GET after it with 503. */
    private static final long FAILS_FROM = 10L * MIB;

    @TempDir
    Path dir;

    private Broadcast.Builder broadcast(S3Fixture s3, URI endpoint) {
        return Broadcast.builder().endpoint(endpoint).region(s3.region()).credentialsProvider(s3.credentialsProvider())
                .destinationDirectory(dir).pieceSize(MIB).rangeSize(MIB);
    }

    /** A fetch through a proxy that answers every ranged GET from {@link #FAILS_FROM} on with SlowDown: it fails. */
    private void interrupted(S3Fixture s3, String key) throws IOException {
        FaultProxy proxy = s3.closeAfterTest(FaultProxy.start(new InetSocketAddress("127.0.0.1", s3.endpoint().getPort())));
        proxy.add(Rule.forGets().range(r -> start(r) >= FAILS_FROM).always().inject(Fault.slowDown()));
        try (Broadcast b = broadcast(s3, proxy.endpoint()).connections(1).maxAttempts(2)
                .retryBackoff(Duration.ZERO, Duration.ZERO).build()) {
            FetchHandle h = b.fetch(FetchRequest.of(s3.bucket(), key));
            assertThatThrownBy(h::join).isInstanceOf(CompletionException.class).cause().isInstanceOf(BroadcastException.class);
            assertThat(h.progress().completedPieces()).isEqualTo((int) (FAILS_FROM / MIB));
        }
    }

    /** A fetch straight from S3, as after a restart. */
    private CompletedFetch fetch(S3Fixture s3, String key) {
        try (Broadcast b = broadcast(s3, s3.endpoint()).connections(4).build()) {
            return b.fetch(FetchRequest.of(s3.bucket(), key)).join();
        }
    }

    private static long start(String range) {
        return Long.parseLong(range.substring("bytes=".length(), range.indexOf('-')));
    }

    @Test
    void aFetchAfterAFailedOneReadsOnlyThePiecesItLacks(S3Fixture s3) throws Exception {
        String key = s3.key("resume/large.bin");
        StoredObject object = s3.putRandom(key, SIZE, 12);
        interrupted(s3, key);
        // Nothing at the destination; the part file and its journal are kept for the next fetch.
        assertThat(files()).hasSize(2).allMatch(n -> n.matches("\\.large\\.bin\\.[0-9a-f]{16}\\.s3b-(part|journal)"));
        // A part file an older version left under a random name goes too.
        Files.writeString(dir.resolve(".large.bin.5e1f00d2c3b4a596.s3b-part"), "left by an older version");

        CompletedFetch done = fetch(s3, key);
        assertThat(BroadcastApiIT.sha256(done.path())).isEqualTo(object.sha256());
        assertThat(done.bytesFromS3()).isEqualTo(SIZE - FAILS_FROM);
        // The resumed pieces were hashed with the rest: the whole file checked against S3's checksum.
        assertThat(done.checksumVerified()).isEqualTo(s3.supports(S3Feature.GET_CHECKSUMS));
        assertThat(files()).containsExactly("large.bin");
    }

    @Test
    void anObjectReplacedMeanwhileIsFetchedWholeAndTheOldPiecesGo(S3Fixture s3) throws Exception {
        String key = s3.key("resume/changed.bin");
        StoredObject old = s3.putRandom(key, SIZE, 1);
        interrupted(s3, key);
        List<String> left = files();
        assertThat(left).hasSize(2);
        StoredObject replaced = s3.overwriteRandom(key, SIZE, 2);
        assertThat(replaced.eTag()).isNotEqualTo(old.eTag());

        CompletedFetch done = fetch(s3, key);
        assertThat(BroadcastApiIT.sha256(done.path())).isEqualTo(replaced.sha256());
        assertThat(done.eTag()).isEqualTo(replaced.eTag());
        assertThat(done.bytesFromS3()).isGreaterThanOrEqualTo(SIZE);
        assertThat(files()).containsExactly("changed.bin");
    }

    @Test
    void aFetchThatAlsoFailsKeepsWhatBothStored(S3Fixture s3) throws Exception {
        String key = s3.key("resume/twice.bin");
        StoredObject object = s3.putRandom(key, SIZE, 3);
        interrupted(s3, key);
        interrupted(s3, key); // resumes the first ten pieces, fails again on the eleventh
        CompletedFetch done = fetch(s3, key);
        assertThat(BroadcastApiIT.sha256(done.path())).isEqualTo(object.sha256());
        assertThat(done.bytesFromS3()).isEqualTo(SIZE - FAILS_FROM);
        assertThat(files()).containsExactly("twice.bin");
    }

    /**
     * What kill -9 leaves: the files as they are on disk while a fetch runs (copied while its S3 reads stall),
     * fetched into by a new process. The journal may lag the pieces by a batch; whatever it lists resumes.
     */
    @Test
    void theFilesOfAFetchStoppedMidRunResume(S3Fixture s3, @TempDir Path restarted) throws Exception {
        String key = s3.key("resume/killed.bin");
        StoredObject object = s3.putRandom(key, SIZE, 4);
        FaultProxy proxy = s3.closeAfterTest(FaultProxy.start(new InetSocketAddress("127.0.0.1", s3.endpoint().getPort())));
        Rule stall = proxy.add(Rule.forGets().range(r -> start(r) >= FAILS_FROM).always().inject(Fault.stallAfter(0)));
        try (Broadcast b = broadcast(s3, proxy.endpoint()).connections(1).build()) {
            FetchHandle running = b.fetch(FetchRequest.of(s3.bucket(), key));
            assertThat(stall.awaitInjected(1, Duration.ofSeconds(60))).isTrue();
            Path journal = only(dir, ".s3b-journal");
            awaitRecords(journal, 1);
            // Journal first, then the data, as a crash would leave them at any moment after.
            Files.copy(journal, restarted.resolve(journal.getFileName()));
            Path part = only(dir, ".s3b-part");
            Files.copy(part, restarted.resolve(part.getFileName()));
            running.cancel();
            stall.release();
        }
        CompletedFetch done;
        try (Broadcast b = broadcast(s3, s3.endpoint()).destinationDirectory(restarted).build()) {
            done = b.fetch(FetchRequest.of(s3.bucket(), key)).join();
        }
        assertThat(BroadcastApiIT.sha256(done.path())).isEqualTo(object.sha256());
        assertThat(done.bytesFromS3()).isLessThan(SIZE).isGreaterThanOrEqualTo(SIZE - FAILS_FROM);
        try (Stream<Path> s = Files.list(restarted)) {
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".s3broadcast")))
                    .containsExactly("killed.bin");
        }
    }

    private static Path only(Path in, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(in)) {
            List<Path> l = s.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
            assertThat(l).hasSize(1);
            return l.get(0);
        }
    }

    /** Waits (bounded) until the journal lists at least {@code n} records after its header. */
    private static void awaitRecords(Path journal, int n) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            byte[] bytes = Files.readAllBytes(journal);
            if (bytes.length >= 12) {
                int header = 16 + java.nio.ByteBuffer.wrap(bytes, 8, 4).getInt();
                if ((bytes.length - header) / 45 >= n) {
                    return;
                }
            }
            assertThat(System.nanoTime()).as("journal %s lists %d records within 30 s", journal, n).isLessThan(deadline);
            java.util.concurrent.locks.LockSupport.parkNanos(2_000_000); // polls the file for the condition, bounded above
        }
    }

    private List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            // Records of what a fetch put where (.NAME.s3broadcast) are meant to stay.
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".s3broadcast")).sorted().toList();
        }
    }
}
