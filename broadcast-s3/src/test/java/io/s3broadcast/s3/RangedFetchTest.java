package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ConnectionTuning;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceRun;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.RangeReads;
import io.s3broadcast.spi.SourceConfig;
import io.s3broadcast.spi.SourceListener;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The fetcher against a scripted client, on fake time: retries, resumption, stalls, errors, cancellation. */
@Timeout(30)
class RangedFetchTest {

    static final int PIECE = 1024;
    static final long RANGE = 4 * PIECE;
    static final String ETAG = "\"0123abcd\"";
    static final Duration STALL = Duration.ofSeconds(5);
    static final Duration FIRST_BYTE = Duration.ofSeconds(2);
    static final Duration HEAD_TIMEOUT = Duration.ofSeconds(10);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

    @TempDir
    Path dir;

    final byte[] data = seeded(10 * PIECE + 300, 42);
    final FakeS3Client client = new FakeS3Client(data, ETAG, 256);
    final ManualScheduler scheduler = new ManualScheduler();
    final Recorder listener = new Recorder();
    PieceStore store;

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    S3ObjectSource source(int connections, int maxAttempts) {
        return source(connections, maxAttempts, S3ObjectSource.WRITE_BUFFER);
    }

    S3ObjectSource source(int connections, int maxAttempts, int writeBuffer) {
        SourceConfig config = new SourceConfig(client, null, null, null, true, "netty", connections, RANGE, maxAttempts,
                Duration.ofMillis(100), MAX_BACKOFF, STALL, FIRST_BYTE, HEAD_TIMEOUT);
        return new S3ObjectSource(client, null, config, scheduler, false, scheduler.ticker(), () -> 0.5, writeBuffer);
    }

    ObjectInfo info() {
        return new ObjectInfo("bkt", "dir/obj", data.length, ETAG, Optional.empty());
    }

    CompletableFuture<Void> fetch(int connections, int maxAttempts) throws IOException {
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        return source(connections, maxAttempts).fetch(info(), PieceQueue.ofRange(0, store.layout().pieceCount()), store,
                listener);
    }

    /** What a fetch of {@link #info()} into {@link #store} gives its readers. */
    ReadContext context() {
        return new ReadContext(client, info(), store, listener, scheduler, scheduler.ticker(), () -> 0.5,
                new Backoff(Duration.ofMillis(100), MAX_BACKOFF), 3, FIRST_BYTE, STALL,
                new BufferPool(S3ObjectSource.WRITE_BUFFER, 1));
    }

    void assertStoredExactly() throws IOException {
        assertThat(store.isComplete()).isTrue();
        PieceLayout layout = store.layout();
        for (int p = 0; p < layout.pieceCount(); p++) {
            CRC32C crc = new CRC32C();
            crc.update(data, (int) layout.offset(p), layout.length(p));
            assertThat(store.crc32c(p)).as("CRC32C of piece %d", p).isEqualTo((int) crc.getValue());
        }
        Path committed = store.commit();
        assertThat(Files.readAllBytes(committed)).isEqualTo(data);
        assertThat(listener.bytes.get()).isGreaterThanOrEqualTo(data.length);
        assertThat(listener.pieces).hasSize(layout.pieceCount()).doesNotHaveDuplicates();
    }

    @Test
    void fetchesEveryPieceInWholePieceRangesPinnedToTheETag() throws Exception {
        CompletableFuture<Void> f = fetch(2, 3);
        assertThat(f).isCompleted();
        assertStoredExactly();
        assertThat(client.calls).extracting(c -> c.request.range())
                .containsExactly("bytes=0-4095", "bytes=4096-8191", "bytes=8192-10539");
        assertThat(client.calls).allSatisfy(c -> assertThat(c.request.ifMatch()).isEqualTo(ETAG));
        assertThat(listener.bytes.get()).isEqualTo(data.length);
    }

    @Test
    void readsAsTheFetchIsToldRatherThanTheConfiguredRange() throws Exception {
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        // Told 2-piece ranges over more connections than configured (2): the ranges shrink, the lanes stay at 2.
        CompletableFuture<Void> f = source(2, 3).fetch(info(), PieceQueue.ofRange(0, store.layout().pieceCount()), store,
                listener, new RangeReads(8, 2 * PIECE));
        assertThat(f).isCompleted();
        assertStoredExactly();
        assertThat(client.calls).extracting(c -> c.request.range()).containsExactly("bytes=0-2047", "bytes=2048-4095",
                "bytes=4096-6143", "bytes=6144-8191", "bytes=8192-10239", "bytes=10240-10539");
    }

    @Test
    void theTunerAddsConnectionsWhileTheRateRises() throws Exception {
        client.pacer = scheduler;
        client.script = (c, n) -> new FakeS3Client.Paced(10_000_000L);
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        // One-piece ranges over one connection to begin with, tuned up to four.
        CompletableFuture<Void> f = source(4, 3).fetch(info(), PieceQueue.ofRange(0, store.layout().pieceCount()), store,
                listener, new RangeReads(1, PIECE, 4, ConnectionTuning.hillClimbing(), false));
        scheduler.advance(Duration.ofMillis(240));
        assertThat(client.maxOpen.get()).isEqualTo(1);
        // The first measurement (250 ms) doubles the count: the rate rose from nothing.
        scheduler.advance(Duration.ofMillis(20));
        assertThat(client.open.get()).isEqualTo(2);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(f).isCompleted();
        assertStoredExactly();
        assertThat(client.maxOpen.get()).isEqualTo(2);
    }

    @Test
    void aFixedCountStaysAsComputed() throws Exception {
        client.pacer = scheduler;
        client.script = (c, n) -> new FakeS3Client.Paced(10_000_000L);
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        CompletableFuture<Void> f = source(4, 3).fetch(info(), PieceQueue.ofRange(0, store.layout().pieceCount()), store,
                listener, new RangeReads(1, PIECE, 4, ConnectionTuning.fixed(), false));
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(f).isCompleted();
        assertStoredExactly();
        assertThat(client.maxOpen.get()).isEqualTo(1);
    }

    @Test
    void slowDownLowersTheCount() throws Exception {
        client.pacer = scheduler;
        client.script = (c, n) -> n == 1 ? FakeS3Client.status(503, "SlowDown") : new FakeS3Client.Paced(10_000_000L);
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        CompletableFuture<Void> f = source(4, 3).fetch(info(), PieceQueue.ofRange(0, store.layout().pieceCount()), store,
                listener, new RangeReads(4, PIECE, 4, ConnectionTuning.hillClimbing(), false));
        // Halved to two: the lane that finished its read stops until only two remain.
        scheduler.advance(Duration.ofMillis(200));
        assertThat(client.open.get()).isLessThanOrEqualTo(2);
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(f).isCompleted();
        assertStoredExactly();
    }

    @Test
    void slowDownsTogetherHalveTheCountOnce() throws Exception {
        client.pacer = scheduler;
        // The two GETs left after the first 503 are turned away too, at the same moment: one throttle, not two.
        client.script = (c, n) -> n <= 2 ? FakeS3Client.status(503, "SlowDown") : new FakeS3Client.Paced(25_000_000L);
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        CompletableFuture<Void> f = source(4, 3).fetch(info(), PieceQueue.ofRange(0, store.layout().pieceCount()), store,
                listener, new RangeReads(4, PIECE, 4, ConnectionTuning.hillClimbing(), false));
        // Retried at 50 ms, each piece takes 100 ms: at 200 ms the two lanes read their second pieces.
        scheduler.advance(Duration.ofMillis(200));
        assertThat(client.open.get()).isEqualTo(2);
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(f).isCompleted();
        assertStoredExactly();
    }

    @Test
    void anIdleConnectionTakesOverTheTailOfASlowRangeAndThePieceCutInTwoIsChecked() throws Exception {
        client.pacer = scheduler;
        // The first GET draws 2.56 KB/s, the others 25.6 KB/s.
        client.script = (c, n) -> new FakeS3Client.Paced(n == 1 ? 100_000_000L : 10_000_000L);
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        store.keepDigests();
        CompletableFuture<Void> f = source(2, 3).fetch(info(), PieceQueue.ofRange(0, store.layout().pieceCount()), store,
                listener, new RangeReads(2, RANGE, 2, ConnectionTuning.fixed(), true));
        // Alone the slow range would take 1.6 s. The other connection ends its two ranges at ~260 ms, while the
        // fetch still reads at its best rate (the link looks busy: no hedge); over the next interval the rate falls
        // to the slow range's, and at 500 ms a spare connection takes its tail.
        scheduler.advance(Duration.ofMillis(490));
        assertThat(listener.hedged).isEmpty();
        scheduler.advance(Duration.ofMillis(20));
        assertThat(listener.hedged).hasSize(1);
        scheduler.advance(Duration.ofMillis(300));
        assertThat(f).isCompleted();
        assertThat(listener.hedged).hasSize(1);
        FakeS3Client.Call slow = client.calls.get(0);
        FakeS3Client.Call tail = client.calls.get(3);
        assertThat(slow.cancelled).isTrue();
        assertThat(tail.end).isEqualTo(RANGE);
        assertThat(tail.start % PIECE).isNotZero();
        assertThat(tail.start).isGreaterThan(slow.start).isLessThan(RANGE);
        // Nothing read twice but the rest of the slow GET's last chunk.
        long delivered = client.calls.stream().mapToLong(c -> c.delivered).sum();
        assertThat(delivered).isLessThan(data.length + 256);
        for (int p = 0; p < store.layout().pieceCount(); p++) {
            assertThat(store.sha256(p)).as("SHA-256 of piece %d", p).isNotNull();
        }
        assertStoredExactly();
    }

    @Test
    void chunksLargerOrSmallerThanTheWriteBufferLandInPlace() throws Exception {
        for (int chunk : new int[] {100, 999, 1000, 1001, 3000, 5000}) {
            FakeS3Client chunky = new FakeS3Client(data, ETAG, chunk);
            SourceConfig config = new SourceConfig(chunky, null, null, null, true, "netty", 2, RANGE, 3,
                    Duration.ofMillis(100), MAX_BACKOFF, STALL, FIRST_BYTE, HEAD_TIMEOUT);
            Recorder recorder = new Recorder();
            try (PieceStore s = PieceStore.create(dir.resolve("chunk-" + chunk), new PieceLayout(data.length, PIECE))) {
                new S3ObjectSource(chunky, null, config, scheduler, false, scheduler.ticker(), () -> 0.5, 1000)
                        .fetch(info(), PieceQueue.ofRange(0, 11), s, recorder).get();
                assertThat(Files.readAllBytes(s.commit())).as("chunks of %d", chunk).isEqualTo(data);
                for (int p = 0; p < 11; p++) {
                    assertThat(s.crc32c(p)).isEqualTo(s.crc32cOnDisk(p));
                }
                assertThat(recorder.pieces).hasSize(11);
            }
        }
    }

    @Test
    void asksForOneChunkAtATimeAndOnlyAfterWritingIt() throws Exception {
        fetch(1, 3).get();
        assertThat(client.calls).allSatisfy(c -> assertThat(c.maxOutstanding).isEqualTo(1));
    }

    @Test
    void emptyObjectNeedsNoRequest() throws Exception {
        store = PieceStore.create(dir.resolve("empty"), new PieceLayout(0, PIECE));
        CompletableFuture<Void> f = source(4, 3).fetch(new ObjectInfo("bkt", "empty", 0, ETAG, Optional.empty()),
                PieceQueue.ofRange(0, 0), store, listener);
        assertThat(f).isCompleted();
        assertThat(client.calls).isEmpty();
    }

    @Test
    void cutMidBodyResumesAtTheFirstPieceNotStored() throws Exception {
        client.script = (c, n) -> n == 1 ? FakeS3Client.cutAfter(PIECE + PIECE / 2) : FakeS3Client.ok();
        CompletableFuture<Void> f = fetch(1, 3);
        assertThat(f).isNotDone();
        assertThat(listener.retries).containsExactly(new PieceRun(1, 4));
        scheduler.advance(MAX_BACKOFF);
        assertThat(f).isCompleted();
        assertThat(client.calls).extracting(c -> c.request.range())
                .containsExactly("bytes=0-4095", "bytes=1024-4095", "bytes=4096-8191", "bytes=8192-10539");
        assertStoredExactly();
    }

    @Test
    void serverErrorsAndSlowDownAreRetriedWithJitteredBackoff() throws Exception {
        client.script = (c, n) -> switch (n) {
            case 1 -> FakeS3Client.status(503, "SlowDown");
            case 2 -> FakeS3Client.status(500, "InternalError");
            default -> FakeS3Client.ok();
        };
        CompletableFuture<Void> f = fetch(1, 5);
        // First retry: up to 100 ms, jitter 0.5 -> 50 ms.
        assertThat(scheduler.delays()).contains(Duration.ofMillis(50));
        scheduler.advance(Duration.ofMillis(50));
        assertThat(client.calls).hasSize(2);
        // Second retry: up to 200 ms -> 100 ms.
        assertThat(scheduler.delays()).contains(Duration.ofNanos(100_000_000));
        scheduler.advance(Duration.ofMillis(100));
        assertThat(f).isCompleted();
        assertThat(listener.retries).hasSize(2);
        assertStoredExactly();
    }

    @Test
    void truncatedBodyIsRetried() throws Exception {
        client.script = (c, n) -> n == 1 ? FakeS3Client.truncateAfter(100) : FakeS3Client.ok();
        CompletableFuture<Void> f = fetch(1, 3);
        scheduler.advance(MAX_BACKOFF);
        assertThat(f).isCompleted();
        assertThat(listener.causes.get(0)).hasMessageContaining("ended after 100 of 4096 bytes");
        assertStoredExactly();
    }

    @Test
    void aFinishedReaderCountsEachByteItReceivedOnce() throws Exception {
        client.script = (c, n) -> n == 1 ? FakeS3Client.truncateAfter(100) : FakeS3Client.ok();
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        RangeReader reader = new RangeReader(context(), new PieceRun(0, 4));
        CompletableFuture<Void> f = reader.start();
        scheduler.advance(MAX_BACKOFF);
        assertThat(f).isCompleted();
        // 100 bytes of the truncated attempt, then the whole range again: each counted once, also once done.
        assertThat(reader.received()).isEqualTo(100 + RANGE);
    }

    @Test
    void aReaderOfTheLastPiecesOnceDoneIsAtItsEndAndCannotBeSplit() throws Exception {
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        int pieces = store.layout().pieceCount();
        RangeReader reader = new RangeReader(context(), new PieceRun(pieces - 2, pieces));
        assertThat(reader.start()).isCompleted();
        assertThat(reader.position()).isEqualTo(data.length);
        assertThat(reader.split(data.length - PIECE / 2)).isFalse();
    }

    @Test
    void stalledBodyIsAbandonedAfterTheStallTimeoutAndRetried() throws Exception {
        client.script = (c, n) -> n == 1 ? FakeS3Client.stallAfter(2 * PIECE + 10) : FakeS3Client.ok();
        CompletableFuture<Void> f = fetch(1, 3);
        scheduler.advance(STALL.minusMillis(1));
        assertThat(client.calls).hasSize(1);
        assertThat(client.calls.get(0).cancelled).isFalse();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(client.calls.get(0).cancelled).isTrue();
        assertThat(listener.causes.get(0)).hasMessageContaining("stalled");
        scheduler.advance(MAX_BACKOFF);
        assertThat(f).isCompleted();
        assertThat(client.calls.get(1).request.range()).isEqualTo("bytes=2048-4095");
        assertStoredExactly();
    }

    @Test
    void getWithoutAResponseIsAbandonedAfterTheFirstByteTimeoutAndRetried() throws Exception {
        client.script = (c, n) -> n == 1 ? new FakeS3Client.Silent() : FakeS3Client.ok();
        CompletableFuture<Void> f = fetch(1, 3);
        scheduler.advance(FIRST_BYTE.minusMillis(1));
        assertThat(client.calls.get(0).cancelled).isFalse();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(client.calls.get(0).cancelled).isTrue();
        assertThat(listener.causes).singleElement().satisfies(c -> assertThat(c)
                .hasMessageContaining("bytes 0-4095 of s3://bkt/dir/obj stalled on attempt 1")
                .hasMessageContaining("no response 2000 ms after the request was sent (firstByteTimeout 2000 ms)"));
        scheduler.advance(MAX_BACKOFF);
        assertThat(f).isCompleted();
        assertStoredExactly();
    }

    @Test
    void responseForOtherBytesIsRejectedAndRetried() throws Exception {
        client.script = (c, n) -> n == 1 ? new FakeS3Client.Serve(Long.MAX_VALUE, null, false, "bytes 0-99/10540", null)
                : FakeS3Client.ok();
        CompletableFuture<Void> f = fetch(1, 3);
        scheduler.advance(MAX_BACKOFF);
        assertThat(f).isCompleted();
        assertThat(listener.causes.get(0)).hasMessageContaining("Content-Range bytes 0-99/10540");
        assertStoredExactly();
    }

    @Test
    void retriesRunOutWithTheRangeInTheMessage() throws Exception {
        client.script = (c, n) -> FakeS3Client.status(503, "SlowDown");
        CompletableFuture<Void> f = fetch(1, 3);
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(client.calls).hasSize(3);
        assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class).cause()
                .isExactlyInstanceOf(BroadcastException.class)
                .hasMessage("bytes 0-4095 of s3://bkt/dir/obj failed after 3 attempts: 503 SlowDown: SlowDown from the fake");
    }

    @Test
    void progressResetsTheAttemptCount() throws Exception {
        // Each attempt stores one more piece before the connection is cut: never 3 failures in a row without progress.
        client.script = (c, n) -> c.end - c.start > PIECE && c.start < RANGE ? FakeS3Client.cutAfter(PIECE) : FakeS3Client.ok();
        CompletableFuture<Void> f = fetch(1, 2);
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(f).isCompleted();
        assertStoredExactly();
    }

    @Test
    void preconditionFailedMeansTheObjectChanged() throws Exception {
        client.script = (c, n) -> FakeS3Client.status(412, "PreconditionFailed");
        CompletableFuture<Void> f = fetch(2, 5);
        assertThatThrownBy(f::get).cause().isInstanceOf(BroadcastException.ObjectChanged.class)
                .hasMessageContaining("s3://bkt/dir/obj").hasMessageContaining(ETAG).hasMessageContaining("fetch again");
        assertThat(client.calls).hasSize(1);
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void responseWithAnotherETagMeansTheObjectChanged() throws Exception {
        client.script = (c, n) -> new FakeS3Client.Serve(Long.MAX_VALUE, null, false, null, "\"other\"");
        CompletableFuture<Void> f = fetch(1, 5);
        assertThatThrownBy(f::get).cause().isInstanceOf(BroadcastException.ObjectChanged.class)
                .hasMessageContaining("came with ETag \"other\"");
        // The response named the new ETag: no HEAD to ask for it.
        assertThat(client.heads).isEmpty();
    }

    @Test
    void accessDeniedAndNotFoundAreNotRetried() throws Exception {
        client.script = (c, n) -> FakeS3Client.status(403, "AccessDenied");
        assertThatThrownBy(fetch(1, 5)::get).cause().isInstanceOf(BroadcastException.AccessDenied.class)
                .hasMessageContaining("s3:GetObject on arn:aws:s3:::bkt/dir/obj");
        store.close();
        client.calls.clear();
        client.script = (c, n) -> FakeS3Client.status(404, "NoSuchKey");
        assertThatThrownBy(fetch(1, 5)::get).cause().isInstanceOf(BroadcastException.ObjectNotFound.class)
                .hasMessageContaining("s3://bkt/dir/obj does not exist");
        assertThat(client.calls).hasSize(1);
    }

    @Test
    void aListenerThatThrowsFailsTheFetchInsteadOfHangingIt() throws Exception {
        listener.throwOnPiece = 3;
        CompletableFuture<Void> f = fetch(2, 5);
        assertThatThrownBy(f::get).cause().isInstanceOf(BroadcastException.class)
                .hasMessageContaining("SourceListener threw");
        assertThat(scheduler.delays()).isEmpty();
    }

    @Test
    void aStoreThatCannotBeWrittenFailsTheFetch() throws Exception {
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        store.abort();
        CompletableFuture<Void> f = source(1, 5).fetch(info(), PieceQueue.ofRange(0, 11), store, listener);
        assertThatThrownBy(f::get).cause().isInstanceOf(BroadcastException.DestinationUnusable.class);
        assertThat(client.calls).hasSize(1);
    }

    @Test
    void cancellingTheFutureCancelsEveryRequestInFlightAndStopsPolling() throws Exception {
        client.script = (c, n) -> FakeS3Client.stallAfter(100);
        AtomicInteger polls = new AtomicInteger();
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        PieceQueue all = PieceQueue.ofRange(0, 11);
        CompletableFuture<Void> f = source(2, 5).fetch(info(), max -> {
            polls.incrementAndGet();
            return all.poll(max);
        }, store, listener);
        assertThat(client.calls).hasSize(2);
        assertThat(client.calls).noneMatch(c -> c.cancelled);
        f.cancel(true);
        assertThat(client.calls).allMatch(c -> c.cancelled);
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(client.calls).hasSize(2);
        assertThat(polls).hasValue(2);
        assertThat(scheduler.delays()).isEmpty();
        assertThatThrownBy(f::get).isInstanceOf(CancellationException.class);
    }

    @Test
    void cancellingDuringBackoffCancelsTheRetry() throws Exception {
        client.script = (c, n) -> FakeS3Client.status(503, "SlowDown");
        CompletableFuture<Void> f = fetch(1, 5);
        assertThat(scheduler.delays()).hasSize(1);
        f.cancel(true);
        assertThat(scheduler.delays()).isEmpty();
        scheduler.advance(Duration.ofMinutes(1));
        assertThat(client.calls).hasSize(1);
    }

    @Test
    void aFailureInOneRangeCancelsTheOthers() throws Exception {
        client.script = (c, n) -> n == 1 ? FakeS3Client.stallAfter(10) : FakeS3Client.status(412, "PreconditionFailed");
        CompletableFuture<Void> f = fetch(2, 5);
        assertThatThrownBy(f::get).cause().isInstanceOf(BroadcastException.ObjectChanged.class);
        assertThat(client.calls.get(0).cancelled).isTrue();
    }

    @Test
    void aQueueThatThrowsFailsTheFetch() throws Exception {
        store = PieceStore.create(dir.resolve("obj"), new PieceLayout(data.length, PIECE));
        CompletableFuture<Void> f = source(2, 5).fetch(info(), max -> {
            throw new IllegalStateException("boom");
        }, store, listener);
        assertThatThrownBy(f::get).cause().hasMessageContaining("piece queue").hasMessageContaining("boom");
    }

    static byte[] seeded(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    static final class Recorder implements SourceListener {
        final AtomicInteger bytes = new AtomicInteger();
        final List<Integer> pieces = Collections.synchronizedList(new ArrayList<>());
        final List<PieceRun> retries = Collections.synchronizedList(new ArrayList<>());
        final List<Throwable> causes = Collections.synchronizedList(new ArrayList<>());
        volatile int throwOnPiece = -1;
        final List<Long> hedged = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void hedged(long tailBytes) {
            hedged.add(tailBytes);
        }

        @Override
        public void bytesReceived(long n) {
            bytes.addAndGet((int) n);
        }

        @Override
        public void pieceStored(int piece) {
            if (piece == throwOnPiece) {
                throw new IllegalStateException("listener bug");
            }
            pieces.add(piece);
        }

        @Override
        public void retrying(PieceRun run, int attempt, long delayMillis, Throwable cause) {
            retries.add(run);
            causes.add(cause);
        }
    }
}
