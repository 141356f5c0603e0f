package io.s3broadcast.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceQueue;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceConfig;
import io.s3broadcast.spi.SourceListener;
import io.s3broadcast.testkit.RealS3;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures the fetcher's throughput for each HTTP client, connection count and range size, to choose
 * the defaults. Not part of the build's tests: run with
 * {@code -Ds3broadcast.s3.throughput=true -Dit.test=FetchThroughputIT} (optionally
 * {@code -Ds3broadcast.s3.throughput.size=1073741824 -Ds3broadcast.s3.throughput.trials=3}).
 */
@RealS3
@EnabledIfSystemProperty(named = "s3broadcast.s3.throughput", matches = "true")
@Timeout(value = 1, unit = TimeUnit.HOURS)
class FetchThroughputIT {

    static final int PIECE = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void clientsConnectionsAndRangeSizes(S3Fixture s3) throws Exception {
        long size = Long.getLong("s3broadcast.s3.throughput.size", 1L << 30);
        int trials = Integer.getInteger("s3broadcast.s3.throughput.trials", 3);
        List<String> clients = List.of(System.getProperty("s3broadcast.s3.throughput.clients", "netty,crt").split(","));
        int[] connections = Arrays.stream(System.getProperty("s3broadcast.s3.throughput.connections", "4,8,16,32")
                .split(",")).mapToInt(Integer::parseInt).toArray();
        long[] ranges = Arrays.stream(System.getProperty("s3broadcast.s3.throughput.rangesMiB", "8,32")
                .split(",")).mapToLong(m -> Long.parseLong(m) << 20).toArray();
        StoredObject object = s3.putRandom(s3.key("throughput.bin"), size, 1);
        List<String> rows = new ArrayList<>();
        rows.add(String.format(Locale.ROOT, "%-6s %5s %6s  %s", "client", "conns", "range",
                "MB/s per trial (median), process CPU s per GiB (median)"));
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double loadBefore = os.getSystemLoadAverage();
        for (String client : clients) {
            for (int c : connections) {
                for (long range : ranges) {
                    SourceConfig config = new SourceConfig(null, s3.endpoint(), s3.region(), s3.credentialsProvider(), true,
                            client, c, range, 5, Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(15),
                            Duration.ofSeconds(10), Duration.ofSeconds(10));
                    double[] rates = new double[trials];
                    double[] cpu = new double[trials];
                    try (ObjectSource source = new S3ObjectSourceProvider().create(config)) {
                        ObjectInfo info = source.head(s3.bucket(), object.key()).get(1, TimeUnit.MINUTES);
                        for (int t = 0; t < trials; t++) {
                            Path file = dir.resolve("t.bin");
                            try (PieceStore store = PieceStore.create(file, new PieceLayout(size, PIECE))) {
                                long cpu0 = os.getProcessCpuTime();
                                long start = System.nanoTime();
                                source.fetch(info, PieceQueue.ofRange(0, store.layout().pieceCount()), store,
                                        SourceListener.NONE).get(10, TimeUnit.MINUTES);
                                rates[t] = size / 1e6 / ((System.nanoTime() - start) / 1e9);
                                cpu[t] = (os.getProcessCpuTime() - cpu0) / 1e9 / (size / (double) (1L << 30));
                                assertThat(store.isComplete()).isTrue();
                            }
                            Files.deleteIfExists(file);
                        }
                    }
                    double[] sorted = rates.clone();
                    Arrays.sort(sorted);
                    double[] sortedCpu = cpu.clone();
                    Arrays.sort(sortedCpu);
                    StringBuilder each = new StringBuilder();
                    for (double r : rates) {
                        each.append(String.format(Locale.ROOT, "%6.0f", r));
                    }
                    String row = String.format(Locale.ROOT, "%-6s %5d %4dMiB %s  (%.0f)  cpu %.2f s/GiB", client, c,
                            range >> 20, each, sorted[trials / 2], sortedCpu[trials / 2]);
                    System.out.println("throughput " + row);
                    rows.add(row);
                }
            }
        }
        String table = "fetch of " + size + " bytes from " + s3.server().name() + " (same JVM), piece " + PIECE + ", "
                + Runtime.getRuntime().availableProcessors() + " cpus, load average " + loadBefore + " before, "
                + os.getSystemLoadAverage() + " after\n" + String.join("\n", rows) + "\n";
        System.out.println(table);
        Files.writeString(Path.of("target", "fetch-throughput-" + s3.server().name() + ".txt"), table);
    }
}
