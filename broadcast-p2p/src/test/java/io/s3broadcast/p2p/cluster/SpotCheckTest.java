package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceListener;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpotCheckTest {

    static final int PIECE = 64 << 10;
    final PieceLayout layout = new PieceLayout(10L * PIECE + 100, PIECE);

    @TempDir
    Path dir;

    @Test
    void samplesStayInTheBudgetAndGoRoundEveryVoucher() {
        Map<String, List<Integer>> byVoucher = Map.of("a", List.of(0, 1, 2), "b", List.of(3, 4), "c", List.of(10));
        List<SpotCheck.Sample> samples = SpotCheck.pick(byVoucher, layout, 5L * SpotCheck.SAMPLE_BYTES, new Random(1));
        assertThat(samples).hasSize(5);
        Set<Integer> vouchersHit = new HashSet<>();
        for (SpotCheck.Sample s : samples) {
            vouchersHit.add(s.piece() <= 2 ? 0 : s.piece() <= 4 ? 1 : 2);
            assertThat(s.offset()).isGreaterThanOrEqualTo(layout.offset(s.piece()));
            assertThat(s.offset() + s.length()).isLessThanOrEqualTo(layout.offset(s.piece()) + layout.length(s.piece()));
        }
        assertThat(vouchersHit).containsExactlyInAnyOrder(0, 1, 2);
        // The short last piece (100 bytes) is sampled whole.
        assertThat(samples).filteredOn(s -> s.piece() == 10).allSatisfy(s -> {
            assertThat(s.length()).isEqualTo(100);
            assertThat(s.offset()).isEqualTo(layout.offset(10));
        });
    }

    @Test
    void atLeastOneSampleAtMostTheCapNoneWithoutBudgetOrPieces() {
        Map<String, List<Integer>> byVoucher = Map.of("a", List.of(0));
        assertThat(SpotCheck.pick(byVoucher, layout, 1, new Random(2))).hasSize(1);
        assertThat(SpotCheck.pick(byVoucher, layout, Long.MAX_VALUE, new Random(2))).hasSize(SpotCheck.MAX_SAMPLES);
        assertThat(SpotCheck.pick(byVoucher, layout, 0, new Random(2))).isEmpty();
        assertThat(SpotCheck.pick(Map.of("a", List.of()), layout, 1 << 20, new Random(2))).isEmpty();
    }

    @Test
    void findsThePiecesWhoseBytesDifferFromTheSourceAndCountsTheBytesRead() throws Exception {
        byte[] truth = new byte[(int) layout.objectSize()];
        new Random(3).nextBytes(truth);
        try (PieceStore store = PieceStore.create(dir.resolve("obj"), layout)) {
            ByteBuffer onDisk = ByteBuffer.wrap(truth.clone());
            onDisk.put(3 * PIECE + 10, (byte) ~truth[3 * PIECE + 10]);
            store.write(0, onDisk);
            List<SpotCheck.Sample> samples = new ArrayList<>();
            samples.add(new SpotCheck.Sample(1, PIECE, 1000));
            samples.add(new SpotCheck.Sample(3, 3L * PIECE, 1000));
            samples.add(new SpotCheck.Sample(3, 3L * PIECE + 2000, 1000));
            samples.add(new SpotCheck.Sample(10, layout.offset(10), 100));
            AtomicLong counted = new AtomicLong();
            SourceListener listener = new SourceListener() {
                @Override
                public void bytesReceived(long bytes) {
                    counted.addAndGet(bytes);
                }
            };
            BitSet wrong = SpotCheck.run(samples, new ArraySource(truth), info(), store, Runnable::run, listener)
                    .get(10, TimeUnit.SECONDS);
            assertThat(wrong.stream().boxed()).containsExactly(3);
            assertThat(counted.get()).isEqualTo(3100);
        }
    }

    @Test
    void aSourceThatCannotReadRangesFailsTheCheck() throws Exception {
        try (PieceStore store = PieceStore.create(dir.resolve("obj"), layout)) {
            ObjectSource noRanges = new NoRangeSource();
            CompletableFuture<BitSet> f = SpotCheck.run(List.of(new SpotCheck.Sample(0, 0, 10)), noRanges, info(), store,
                    Runnable::run, SourceListener.NONE);
            assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(UnsupportedOperationException.class);
        }
    }

    private ObjectInfo info() {
        return new ObjectInfo("b", "k", layout.objectSize(), "\"etag\"", Optional.empty());
    }

    /** The object's bytes in memory, read by range. */
    private static final class ArraySource extends NoRangeSource {
        private final byte[] bytes;

        ArraySource(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public CompletableFuture<ByteBuffer> read(ObjectInfo object, long offset, int length) {
            return CompletableFuture.completedFuture(ByteBuffer.wrap(bytes, (int) offset, length).slice());
        }
    }

    /** A source with only what the spot check does not use, and the SPI's default range read. */
    private static class NoRangeSource implements ObjectSource {

        @Override
        public CompletableFuture<ObjectInfo> head(String bucket, String key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> fetch(ObjectInfo object, PieceQueue pieces, PieceStore store, SourceListener l) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
