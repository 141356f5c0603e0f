package io.s3broadcast.bench;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchProgress;
import io.s3broadcast.FetchRequest;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code demo}: one fetch through {@code Broadcast} from an embedded S3 server, with a progress bar. */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "%n",
        header = "Fetch one object from an embedded S3 server with Broadcast, showing progress.",
        description = {
            "%nStarts S3Proxy in this JVM, uploads a seeded random object of --size bytes, fetches it with"
                    + " Broadcast (flat tree) showing a progress bar on stderr, then prints where it is, how fast it"
                    + " came and whether it was verified, and one JSON line. Until the cluster exists this is one node.",
        },
        footerHeading = "%nExample:%n",
        footer = "  java -jar broadcast-bench.jar demo --size 256MiB")
final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--size", paramLabel = "SIZE", converter = ByteSize.Converter.class, defaultValue = "256MiB",
            description = "Size of the object, e.g. 16MiB, 1GiB (default: ${DEFAULT-VALUE}).")
    long size;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the random object (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--connections", paramLabel = "N", description = "Concurrent ranged GETs (default: Broadcast's).")
    Integer connections;

    @Option(names = "--range-size", paramLabel = "SIZE", converter = ByteSize.Converter.class,
            description = "Bytes per ranged GET (default: Broadcast's).")
    Long rangeSize;

    @Option(names = "--http-client", paramLabel = "netty|crt", description = "SDK HTTP client (default: Broadcast's).")
    String httpClient;

    @Option(names = "--output-dir", paramLabel = "DIR",
            description = "Where to put the object (default: a new temporary directory, deleted afterwards unless --keep).")
    Path outputDir;

    @Option(names = "--keep", description = "Keep the fetched file (always kept with --output-dir).")
    boolean keep;

    @Option(names = "--no-progress", negatable = false, description = "No progress bar.")
    boolean noProgress;

    @Override
    public Integer call() throws Exception {
        double loadBefore = Machine.loadAverage();
        if (size < 0) {
            throw new ParameterException(spec.commandLine(), "--size must not be negative");
        }
        boolean keepFile = keep || outputDir != null;
        Path dir = outputDir != null ? Files.createDirectories(outputDir) : Files.createTempDirectory("s3broadcast-demo-");
        PrintWriter out = spec.commandLine().getOut();
        Path file = null;
        try (Testbed testbed = Testbed.embedded(size, seed)) {
            Tuning tuning = new Tuning(connections, rangeSize, null, httpClient, null);
            CompletedFetch done;
            try (Broadcast broadcast = configure(testbed.endpoint(), tuning, dir).build();
                    ProgressBar bar = noProgress ? null : progressBar(size)) {
                FetchRequest.Builder request = FetchRequest.builder().bucket(testbed.bucket()).key(testbed.key())
                        .destination(dir.resolve(Path.of(testbed.key()).getFileName()));
                if (bar != null) {
                    request.addListener(new BarListener(bar));
                }
                done = broadcast.fetch(request.build()).join();
            }
            file = done.path();
            boolean match = Sha256.of(file).equals(testbed.sha256());
            double seconds = done.duration().toNanos() / 1e9;
            DemoReport report = new DemoReport("demo", testbed.size(), testbed.endpoint().kind(),
                    testbed.endpoint().server(), testbed.endpoint().describe(), testbed.bucket(), testbed.key(),
                    done.strategy().name(), file.toAbsolutePath().toString(), keepFile, Files.size(file),
                    SingleCommand.round(seconds, 3), SingleCommand.round(done.megabytesPerSecond(), 2),
                    done.bytesFromS3(), done.bytesFromPeers(), done.checksumVerified(), testbed.sha256(), match,
                    Machine.current(loadBefore));
            print(out, report);
            out.println(Json.line(report));
            out.flush();
            return match ? 0 : 1;
        } finally {
            if (!keepFile) {
                if (file != null) {
                    Files.deleteIfExists(file);
                }
                deleteIfEmpty(dir);
            }
        }
    }

    private static Broadcast.Builder configure(Endpoint endpoint, Tuning tuning, Path dir) {
        Broadcast.Builder builder = endpoint.configure(Broadcast.builder()).destinationDirectory(dir);
        if (tuning.connections() != null) {
            builder.connections(tuning.connections());
        }
        if (tuning.rangeSize() != null) {
            builder.rangeSize(tuning.rangeSize());
        }
        if (tuning.httpClient() != null) {
            builder.httpClient(tuning.httpClient());
        }
        return builder;
    }

    private static ProgressBar progressBar(long size) {
        return new ProgressBarBuilder()
                .setTaskName("fetch")
                .setInitialMax(size)
                .setUnit("MiB", 1 << 20)
                .showSpeed()
                .setUpdateIntervalMillis(200)
                .setStyle(System.console() != null ? ProgressBarStyle.COLORFUL_UNICODE_BLOCK : ProgressBarStyle.ASCII)
                .setConsumer(new ConsoleProgressBarConsumer(System.err))
                .build();
    }

    private static void print(PrintWriter out, DemoReport r) {
        out.printf(Locale.ROOT, "%nfetched s3://%s/%s from %s %s%n", r.bucket(), r.key(), r.server(), r.endpoint());
        out.printf(Locale.ROOT, "  path               %s%s%n", r.path(), r.kept() ? "" : " (deleted on exit; --keep to keep it)");
        out.printf(Locale.ROOT, "  bytes              %d (%s)%n", r.bytes(), ByteSize.format(r.bytes()));
        out.printf(Locale.ROOT, "  seconds            %.3f%n", r.seconds());
        out.printf(Locale.ROOT, "  MB/s               %.1f%n", r.rate());
        out.printf(Locale.ROOT, "  bytes from S3      %d%n", r.bytesFromS3());
        out.printf(Locale.ROOT, "  checksum verified  %s%n", r.checksumVerified()
                ? "yes, against S3's full-object checksum" : "pieces only (S3 sent no full-object checksum)");
        out.printf(Locale.ROOT, "  sha256             %s%n", r.sha256Match() ? "ok" : "MISMATCH");
    }

    private static void deleteIfEmpty(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // Not empty or not ours to delete: leave it.
        }
    }

    /** Moves the bar as pieces land; never blocks (the bar renders on its own thread). */
    private static final class BarListener implements FetchListener {
        private final ProgressBar bar;

        BarListener(ProgressBar bar) {
            this.bar = bar;
        }

        @Override
        public void fetchInitiated(FetchProgress progress) {
            if (progress.totalBytes() >= 0) {
                bar.maxHint(progress.totalBytes());
            }
        }

        @Override
        public void bytesTransferred(FetchProgress progress) {
            bar.stepTo(progress.transferredBytes());
        }

        @Override
        public void fetchComplete(CompletedFetch result) {
            bar.stepTo(result.size());
        }
    }
}
