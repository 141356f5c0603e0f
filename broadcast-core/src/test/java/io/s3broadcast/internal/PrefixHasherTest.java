package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.spi.ObjectChecksum;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The hasher on fake time: tasks run only when the test says so, reads come from an array it controls. */
class PrefixHasherTest {

    private static final int PIECE = 64 << 10;

    private final ManualScheduler executor = new ManualScheduler();
    private final byte[] data = random(20 * PIECE + 123);
    private final PieceLayout layout = new PieceLayout(data.length, PIECE);
    private final List<long[]> reads = new ArrayList<>();
    private Runnable duringRead = () -> { };

    @Test
    void piecesArrivingOutOfOrderAreHashedAsTheirPrefixGrowsAndEachByteIsReadOnce() {
        IncrementalDigest md5 = digest(ObjectChecksum.fullObject("MD5", hex(IncrementalDigestTest.digest("MD5", data, 0,
                data.length))));
        PrefixHasher h = hasher(md5);
        CompletableFuture<Void> done = h.whenDone();
        List<Integer> order = IncrementalDigestTest.shuffled(layout.pieceCount(), new Random(5));
        for (int p : order) {
            h.pieceCompleted(p, crc32c(p));
            executor.runPending();
            assertThat(hashedUpTo()).as("the prefix hashed is the contiguous run of pieces present")
                    .isEqualTo(prefixPresent(order.subList(0, order.indexOf(p) + 1)));
        }
        assertThat(done).isCompleted();
        assertThat(md5.matches()).isTrue();
        assertThat(bytesRead()).isEqualTo(data.length);
        assertThat(reads).allSatisfy(r -> assertThat(r[1]).isLessThanOrEqualTo(PrefixHasher.CHUNK));
    }

    @Test
    void whenPiecesComeInOrderOnlyTheLastIsLeftToHashAtTheEnd() {
        IncrementalDigest sha = digest(ObjectChecksum.fullObject("SHA256",
                IncrementalDigestTest.base64(IncrementalDigestTest.digest("SHA256", data, 0, data.length))));
        PrefixHasher h = hasher(sha);
        int last = layout.pieceCount() - 1;
        for (int p = 0; p < last; p++) {
            h.pieceCompleted(p, crc32c(p));
        }
        executor.runPending();
        long before = bytesRead();
        CompletableFuture<Void> done = h.whenDone();
        h.pieceCompleted(last, crc32c(last));
        executor.runPending();
        assertThat(done).isCompleted();
        assertThat(bytesRead() - before).isEqualTo(layout.length(last));
        assertThat(sha.matches()).isTrue();
    }

    @Test
    void bytesLeftIsWhatTheDigestsStillHaveToHash() {
        IncrementalDigest md5 = digest(ObjectChecksum.fullObject("MD5", hex(IncrementalDigestTest.digest("MD5", data, 0,
                data.length))));
        PrefixHasher h = hasher(md5);
        assertThat(h.bytesLeft()).isEqualTo(data.length);
        h.pieceCompleted(1, crc32c(1));
        h.pieceCompleted(2, crc32c(2));
        executor.runPending();
        assertThat(h.bytesLeft()).as("waiting for piece 0").isEqualTo(data.length);
        h.pieceCompleted(0, crc32c(0));
        executor.runPending();
        assertThat(h.bytesLeft()).isEqualTo(data.length - 3L * PIECE);
    }

    @Test
    void aPieceReplacedAfterItWasHashedSendsItsSegmentBackToTheStart() {
        List<Long> parts = List.of(7L * PIECE, 7L * PIECE, (long) data.length - 14L * PIECE);
        byte[] right = data.clone();
        IncrementalDigest eTag = digest(new ObjectChecksum("MD5", multipartETag(right, parts), false, parts));
        data[PIECE * 8 + 5] ^= 1; // piece 8, in the second part, arrives wrong
        PrefixHasher h = hasher(eTag);
        for (int p = 0; p < layout.pieceCount(); p++) {
            h.pieceCompleted(p, crc32c(p));
        }
        executor.runPending();
        assertThat(h.whenDone()).isCompleted();
        assertThat(eTag.matches()).isFalse();

        reads.clear();
        h.pieceForgotten(8);
        System.arraycopy(right, 0, data, 0, right.length);
        CompletableFuture<Void> again = h.whenDone();
        executor.runPending();
        assertThat(again).isNotDone();
        h.pieceCompleted(8, crc32c(8));
        executor.runPending();
        assertThat(again).isCompleted();
        assertThat(eTag.matches()).isTrue();
        assertThat(bytesRead()).as("only the second part is hashed again").isEqualTo(7L * PIECE);
        assertThat(reads.get(0)[0]).isEqualTo(7L * PIECE);
    }

    @Test
    void aPieceForgottenWhileItIsBeingReadIsHashedAgainOnceReplaced() {
        String sha = IncrementalDigestTest.base64(IncrementalDigestTest.digest("SHA256", data, 0, data.length));
        IncrementalDigest d = digest(ObjectChecksum.fullObject("SHA256", sha));
        byte[] right = data.clone();
        data[3 * PIECE] ^= 1;
        PrefixHasher h = hasher(d);
        for (int p = 0; p < layout.pieceCount(); p++) {
            h.pieceCompleted(p, p == 3 ? crc32c(3) : crc32c(p));
        }
        duringRead = () -> {
            if (reads.get(reads.size() - 1)[0] == 3L * PIECE) {
                duringRead = () -> { };
                h.pieceForgotten(3);
                System.arraycopy(right, 0, data, 0, right.length);
                h.pieceCompleted(3, crc32c(3));
            }
        };
        executor.runPending();
        assertThat(h.whenDone()).isCompleted();
        assertThat(d.matches()).isTrue();
    }

    @Test
    void aFullObjectCrc32cReadsNothingAndACrc64ReadsEachPieceOnceInAnyOrder() {
        String crc32c = IncrementalDigestTest.base64(IncrementalDigestTest.digest("CRC32C", data, 0, data.length));
        String crc64 = IncrementalDigestTest.base64(IncrementalDigestTest.digest("CRC64NVME", data, 0, data.length));
        IncrementalDigest a = digest(ObjectChecksum.fullObject("CRC32C", crc32c));
        PrefixHasher h = hasher(a);
        IncrementalDigestTest.shuffled(layout.pieceCount(), new Random(9)).forEach(p -> h.pieceCompleted(p, crc32c(p)));
        executor.runPending();
        assertThat(h.whenDone()).isCompleted();
        assertThat(a.matches()).isTrue();
        assertThat(reads).isEmpty();

        IncrementalDigest b = digest(ObjectChecksum.fullObject("CRC64NVME", crc64));
        PrefixHasher h64 = hasher(b);
        for (int p : IncrementalDigestTest.shuffled(layout.pieceCount(), new Random(9))) {
            long before = bytesRead();
            h64.pieceCompleted(p, crc32c(p));
            executor.runPending();
            assertThat(bytesRead() - before).as("piece " + p + " is hashed as it lands").isEqualTo(layout.length(p));
        }
        assertThat(h64.whenDone()).isCompleted();
        assertThat(b.matches()).isTrue();
    }

    @Test
    void aPieceOnDiskOtherThanWhatArrivedFailsNamingIt() {
        IncrementalDigest d = digest(ObjectChecksum.fullObject("SHA1", "x"));
        PrefixHasher h = hasher(d);
        CompletableFuture<Void> done = h.whenDone();
        for (int p = 0; p < layout.pieceCount(); p++) {
            h.pieceCompleted(p, p == 2 ? crc32c(2) + 1 : crc32c(p));
        }
        executor.runPending();
        assertThat(done).isCompletedExceptionally();
        assertThat(done.handle((v, e) -> e).join()).isInstanceOf(BroadcastException.ChecksumMismatch.class)
                .hasMessageContaining("piece 2 (bytes 131072-196607) of s3://b/k");
    }

    @Test
    void memoryStaysOneChunkWhateverTheSizeAndTheOrder() {
        // 256 MiB in 1 MiB pieces, landing last first: nothing is read (or held) until the first piece is in,
        // then the whole prefix is hashed one chunk at a time through the one buffer (whose zeros the fake
        // reader leaves in place: each piece's CRC32C is that of 1 MiB of zeros).
        PieceLayout big = new PieceLayout(256L << 20, 1 << 20);
        CRC32C zeros = new CRC32C();
        zeros.update(new byte[1 << 20]);
        int crc = (int) zeros.getValue();
        IncrementalDigest md5 = IncrementalDigest.of(ObjectChecksum.fullObject("MD5", "x"), big);
        List<Integer> capacities = new ArrayList<>();
        long[] read = {0};
        PrefixHasher h = new PrefixHasher(big, List.of(md5), (position, dst) -> {
            capacities.add(dst.capacity());
            read[0] += dst.remaining();
            dst.position(dst.limit());
        }, executor, "s3://b/big");
        for (int p = big.pieceCount() - 1; p > 0; p--) {
            h.pieceCompleted(p, crc);
        }
        executor.runPending();
        assertThat(read[0]).isZero();
        h.pieceCompleted(0, crc);
        executor.runPending();
        assertThat(read[0]).isEqualTo(big.objectSize());
        assertThat(capacities).containsOnly(PrefixHasher.CHUNK);
        assertThat(h.whenDone()).isCompleted();
    }

    @Test
    void closingFailsWhoeverWaits() {
        PrefixHasher h = hasher(digest(ObjectChecksum.fullObject("SHA256", "x")));
        CompletableFuture<Void> done = h.whenDone();
        h.close();
        assertThat(done).isCompletedExceptionally();
    }

    private PrefixHasher hasher(IncrementalDigest... digests) {
        return new PrefixHasher(layout, List.of(digests), (position, dst) -> {
            reads.add(new long[] {position, dst.remaining()});
            duringRead.run();
            dst.put(ByteBuffer.wrap(data, (int) position, dst.remaining()));
        }, executor, "s3://b/k");
    }

    private IncrementalDigest digest(ObjectChecksum c) {
        return IncrementalDigest.of(c, layout);
    }

    private long bytesRead() {
        return reads.stream().mapToLong(r -> r[1]).sum();
    }

    private long hashedUpTo() {
        return bytesRead();
    }

    private long prefixPresent(List<Integer> present) {
        int p = 0;
        while (present.contains(p)) {
            p++;
        }
        return p == layout.pieceCount() ? data.length : (long) p * PIECE;
    }

    private int crc32c(int piece) {
        CRC32C c = new CRC32C();
        c.update(data, (int) layout.offset(piece), layout.length(piece));
        return (int) c.getValue();
    }

    private static String multipartETag(byte[] bytes, List<Long> parts) {
        return IncrementalDigestTest.composite("MD5", bytes, parts, true);
    }

    private static String hex(byte[] b) {
        return IncrementalDigestTest.hex(b);
    }

    private static byte[] random(int n) {
        return IncrementalDigestTest.random(n);
    }
}
