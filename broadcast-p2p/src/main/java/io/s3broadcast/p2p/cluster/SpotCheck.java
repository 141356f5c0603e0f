package io.s3broadcast.p2p.cluster;

import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The spot check, for an object with no digest S3 vouches for: small byte ranges of the pieces taken from
 * peers, picked at random, read from S3 and compared with the store. The samples go round the peers that
 * vouched for those pieces (in a random order), so a peer that lies about every piece it vouches for is caught
 * as soon as one sample lands on it, and the budget buys many samples instead of a few whole pieces.
 */
final class SpotCheck {

    /** Bytes of one sample (less for a shorter piece). */
    static final int SAMPLE_BYTES = 16 << 10;
    /** Samples at most, whatever the budget: each is a request. */
    static final int MAX_SAMPLES = 256;
    /** Sample reads in flight at once. */
    static final int LANES = 4;

    /** Bytes {@code [offset, offset + length)} of the object, inside {@code piece}. */
    record Sample(int piece, long offset, int length) {
    }

    private SpotCheck() {
    }

    /**
     * Picks samples worth {@code budgetBytes} of S3 reads (at least one, at most {@link #MAX_SAMPLES}), spread
     * round robin over the vouching peers of {@code piecesByVoucher}; none when the budget is 0 or there is
     * nothing to check.
     */
    static List<Sample> pick(Map<String, List<Integer>> piecesByVoucher, PieceLayout layout, long budgetBytes,
            Random random) {
        List<List<Integer>> vouchers = new ArrayList<>();
        piecesByVoucher.values().stream().filter(l -> !l.isEmpty()).forEach(vouchers::add);
        if (budgetBytes <= 0 || vouchers.isEmpty()) {
            return List.of();
        }
        Collections.shuffle(vouchers, random);
        long count = Math.max(1, Math.min(MAX_SAMPLES, budgetBytes / SAMPLE_BYTES));
        List<Sample> samples = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            List<Integer> pieces = vouchers.get(i % vouchers.size());
            int piece = pieces.get(random.nextInt(pieces.size()));
            int pieceLength = layout.length(piece);
            int length = Math.min(SAMPLE_BYTES, pieceLength);
            long offset = layout.offset(piece) + random.nextInt(pieceLength - length + 1);
            samples.add(new Sample(piece, offset, length));
        }
        return samples;
    }

    /**
     * Reads every sample from {@code source} ({@link #LANES} at a time) and compares it with the store's bytes
     * (read on {@code disk}); completes with the pieces whose sample differs. S3 bytes are reported to
     * {@code listener}. Fails when a read fails (an {@link UnsupportedOperationException} when the source
     * cannot read a range).
     */
    static CompletableFuture<BitSet> run(List<Sample> samples, ObjectSource source, ObjectInfo object, PieceStore store,
            Executor disk, SourceListener listener) {
        BitSet wrong = new BitSet();
        List<CompletableFuture<Void>> lanes = new ArrayList<>();
        for (int lane = 0; lane < LANES && lane < samples.size(); lane++) {
            CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
            for (int i = lane; i < samples.size(); i += LANES) {
                Sample s = samples.get(i);
                chain = chain.thenCompose(v -> source.read(object, s.offset(), s.length()))
                        .thenAcceptAsync(fromS3 -> {
                            listener.bytesReceived(s.length());
                            if (!fromS3.equals(readStore(store.channel(), s))) {
                                synchronized (wrong) {
                                    wrong.set(s.piece());
                                }
                            }
                        }, disk);
            }
            lanes.add(chain);
        }
        return CompletableFuture.allOf(lanes.toArray(CompletableFuture[]::new)).thenApply(v -> {
            synchronized (wrong) {
                return (BitSet) wrong.clone();
            }
        });
    }

    private static ByteBuffer readStore(FileChannel channel, Sample s) {
        ByteBuffer buf = ByteBuffer.allocate(s.length());
        try {
            while (buf.hasRemaining()) {
                if (channel.read(buf, s.offset() + buf.position()) < 0) {
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read bytes " + s.offset() + "+" + s.length() + " back to check them", e);
        }
        return buf.flip();
    }
}
