package io.s3broadcast.s3;

import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceConfig;
import io.s3broadcast.spi.SourceListener;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * Fetches one object with the S3 source alone (no public API) once per HTTP client named, and prints per
 * client the SHA-256 of what landed and the peak heap in use; run by {@link SourceSmallHeapIT} in a JVM
 * of its own with a small {@code -Xmx}.
 *
 * <p>Arguments: endpoint bucket key directory region accessKey secretKey clients (comma-separated).
 */
public final class SmallHeapSourceMain {

    private SmallHeapSourceMain() {
    }

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        String bucket = args[1];
        String key = args[2];
        Path dir = Path.of(args[3]);
        Region region = Region.of(args[4]);
        StaticCredentialsProvider credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create(args[5], args[6]));
        for (String client : args[7].split(",")) {
            SourceConfig config = new SourceConfig(null, endpoint, region, credentials, true, client, 16, 8L << 20, 5,
                    Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(10),
                    Duration.ofSeconds(10));
            Path file = dir.resolve("object-" + client);
            resetPeaks();
            long start = System.nanoTime();
            try (ObjectSource source = new S3ObjectSourceProvider().create(config)) {
                ObjectInfo info = source.head(bucket, key).join();
                try (PieceStore store = PieceStore.create(file, new PieceLayout(info.size(), 1 << 20))) {
                    source.fetch(info, PieceQueue.ofRange(0, store.layout().pieceCount()), store, SourceListener.NONE)
                            .join();
                    store.commit();
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long peak = peakHeap();
            System.out.printf(Locale.ROOT, "client=%s size=%d seconds=%.1f peakHeapMiB=%d sha256=%s%n", client,
                    Files.size(file), seconds, peak >> 20, sha256(file));
            Files.delete(file);
        }
    }

    private static void resetPeaks() {
        System.gc();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    /** The sum of the heap pools' peaks: an upper bound of the heap in use at any one time. */
    private static long peakHeap() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                sum += pool.getPeakUsage().getUsed();
            }
        }
        return sum;
    }

    private static String sha256(Path file) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), md)) {
            in.transferTo(OutputStream.nullOutputStream());
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
