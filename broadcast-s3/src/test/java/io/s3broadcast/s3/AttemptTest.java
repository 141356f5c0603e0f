package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceListener;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** One GET of a reader, against a scripted client on fake time: what it asks, what it reports, how it ends. */
@Timeout(30)
class AttemptTest {

    static final int PIECE = 1024;
    static final String ETAG = "\"0123abcd\"";
    static final Duration STALL = Duration.ofSeconds(5);
    static final Duration FIRST_BYTE = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    final byte[] data = RangedFetchTest.seeded(8 * PIECE, 7);
    final FakeS3Client client = new FakeS3Client(data, ETAG, 256);
    final ManualScheduler scheduler = new ManualScheduler();
    final Reader reader = new Reader();
    final List<Integer> parts = new ArrayList<>();
    PieceStore store;

    @BeforeEach
    void createStore() throws IOException {
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    Attempt attempt(int number, int firstPiece, long start, long end) {
        ReadContext ctx = new ReadContext(client, new ObjectInfo("bkt", "dir/obj", data.length, ETAG, Optional.empty()),
                store, SourceListener.NONE, scheduler, scheduler.ticker(), () -> 0.5,
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), 3, FIRST_BYTE, STALL,
                new BufferPool(S3ObjectSource.WRITE_BUFFER, 1));
        return new Attempt(ctx, reader, number, firstPiece, start, end, parts::add);
    }

    @Test
    void asksForItsBytesPinnedToTheETagAndReportsEachPieceAndEveryByte() {
        Attempt a = attempt(1, 0, 0, 4 * PIECE);
        a.start();
        assertThat(client.calls).singleElement().satisfies(c -> {
            assertThat(c.request.range()).isEqualTo("bytes=0-4095");
            assertThat(c.request.ifMatch()).isEqualTo(ETAG);
            assertThat(c.request.bucket()).isEqualTo("bkt");
            assertThat(c.request.key()).isEqualTo("dir/obj");
        });
        assertThat(reader.pieces).containsExactly(0, 1, 2, 3);
        // The headers (0 bytes), then one report per 256-byte chunk.
        assertThat(reader.bytes.get(0)).isZero();
        assertThat(reader.bytes.stream().mapToLong(Long::longValue).sum()).isEqualTo(4 * PIECE);
        assertThat(reader.ends).containsExactly(new End(a, null));
        assertThat(a.received()).isEqualTo(4 * PIECE);
        assertThat(a.ended()).isTrue();
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void aPieceItHasOnlySomeBytesOfIsAPart() {
        attempt(1, 0, PIECE / 2, 2 * PIECE).start();
        assertThat(parts).containsExactly(0);
        // The reader hears of the part too: its bytes are written.
        assertThat(reader.pieces).containsExactly(0, 1);
        assertThat(reader.ends).singleElement().satisfies(e -> assertThat(e.failure()).isNull());
    }

    @Test
    void aResponseThatNeverBeginsEndsItAtTheFirstByteTimeoutNamingTheAttempt() {
        client.script = (c, n) -> new FakeS3Client.Silent();
        Attempt a = attempt(2, 1, PIECE, 4 * PIECE);
        a.start();
        scheduler.advance(FIRST_BYTE.minusMillis(1));
        assertThat(reader.ends).isEmpty();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(client.calls.get(0).cancelled).isTrue();
        assertThat(reader.ends).singleElement().satisfies(e -> assertThat(e.failure())
                .isInstanceOf(TransientReadException.class)
                .hasMessage("bytes 1024-4095 of s3://bkt/dir/obj stalled on attempt 2: no response 2000 ms after the "
                        + "request was sent (firstByteTimeout 2000 ms)"));
        assertThat(reader.bytes).isEmpty();
    }

    @Test
    void aBodyThatStallsEndsItOnceAtTheStallTimeout() {
        client.script = (c, n) -> FakeS3Client.stallAfter(PIECE + 10);
        Attempt a = attempt(1, 0, 0, 4 * PIECE);
        a.start();
        assertThat(reader.pieces).containsExactly(0);
        assertThat(a.position()).isEqualTo(PIECE + 10);
        scheduler.advance(STALL);
        assertThat(client.calls.get(0).cancelled).isTrue();
        assertThat(reader.ends).singleElement().satisfies(e -> assertThat(e.failure())
                .hasMessageEndingWith("no byte for 5000 ms (stallTimeout 5000 ms)"));
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(reader.ends).hasSize(1);
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void endedByTheReaderItCancelsTheGetAndStopsWatchingIt() {
        client.script = (c, n) -> new FakeS3Client.Silent();
        Attempt a = attempt(1, 0, 0, 4 * PIECE);
        a.start();
        CancellationException cancel = new CancellationException("cancelled");
        a.end(cancel);
        a.end(new IllegalStateException("a second end"));
        assertThat(client.calls.get(0).cancelled).isTrue();
        assertThat(reader.ends).containsExactly(new End(a, cancel));
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void aFailedGetIsReportedAsTheClientGaveIt() {
        client.script = (c, n) -> FakeS3Client.status(503, "SlowDown");
        Attempt a = attempt(1, 0, 0, 4 * PIECE);
        a.start();
        assertThat(reader.ends).singleElement().satisfies(e -> assertThat(e.failure())
                .isInstanceOf(S3Exception.class).hasMessageContaining("SlowDown"));
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void aCutAheadOfItStopsTheWriterThereAndOneBehindItIsRefused() {
        client.pacer = scheduler;
        client.script = (c, n) -> new FakeS3Client.Paced(1_000_000L);
        Attempt a = attempt(1, 0, 0, 4 * PIECE);
        a.start();
        scheduler.advance(Duration.ofMillis(5));
        assertThat(a.position()).isEqualTo(5 * 256);
        assertThat(a.received()).isEqualTo(5 * 256);
        assertThat(a.cut(4 * 256)).isFalse();
        assertThat(a.cut(2 * PIECE)).isTrue();
        reader.finished = true;
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(reader.pieces).containsExactly(0, 1);
        assertThat(a.position()).isEqualTo(2 * PIECE);
        assertThat(reader.ends).containsExactly(new End(a, null));
        assertThat(client.calls.get(0).delivered).isEqualTo(2 * PIECE);
    }

    @Test
    void aClientThatThrowsEndsItWithWhatItThrew() {
        client.script = (c, n) -> {
            throw new IllegalStateException("client bug");
        };
        Attempt a = attempt(1, 0, 0, 4 * PIECE);
        a.start();
        assertThat(reader.ends).singleElement().satisfies(e -> assertThat(e.failure()).hasMessage("client bug"));
        assertThat(scheduler.delays()).isEmpty();
    }

    record End(Attempt attempt, Throwable failure) {
    }

    /** A reader that records what its attempt told it; {@link #finished} as the test sets it. */
    static final class Reader implements Attempt.Reader {
        final List<Integer> pieces = new ArrayList<>();
        final List<Long> bytes = new ArrayList<>();
        final List<End> ends = new ArrayList<>();
        volatile boolean finished;

        @Override
        public void pieceStored(int piece) {
            pieces.add(piece);
        }

        @Override
        public void bytesCame(long n) {
            bytes.add(n);
        }

        @Override
        public boolean finished() {
            return finished;
        }

        @Override
        public void attemptEnded(Attempt attempt, Throwable failure) {
            ends.add(new End(attempt, failure));
        }
    }
}
