package io.s3broadcast.internal;

import com.google.common.base.Ticker;
import io.s3broadcast.FetchListener;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.SourceConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import software.amazon.awssdk.regions.Region;

/** Every setting of a broadcast, resolved: explicit value, else system property, else environment, else default. */
record Settings(
        SourceConfig source,
        Path destinationDirectory,
        Strategy strategy,
        int pieceSize,
        List<FetchListener> listeners,
        ExecutorService executor,
        Ticker ticker) {

    static final int DEFAULT_CONNECTIONS = 16;
    static final long DEFAULT_RANGE_SIZE = 8L << 20;
    static final int DEFAULT_PIECE_SIZE = 1 << 20;
    static final int DEFAULT_MAX_ATTEMPTS = 10;
    static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
    static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);
    static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(15);
    static final String DEFAULT_HTTP_CLIENT = "netty";

    static Settings resolve(BroadcastBuilder b) {
        ConfigSource c = b.config;
        URI endpoint = b.endpoint != null ? b.endpoint
                : c.parsed("endpoint", "a URI such as http://127.0.0.1:9000", URI::create).orElse(null);
        Region region = b.region != null ? b.region : c.string("region").map(Region::of).orElse(null);
        boolean pathStyle = b.pathStyle != null ? b.pathStyle : c.bool("pathStyle").orElse(endpoint != null);
        String httpClient = (b.httpClient != null ? b.httpClient : c.string("httpClient").orElse(DEFAULT_HTTP_CLIENT))
                .toLowerCase(Locale.ROOT);
        if (!httpClient.equals("netty") && !httpClient.equals("crt")) {
            throw new IllegalArgumentException("unknown httpClient '" + httpClient + "': use netty or crt");
        }
        int connections = b.connections != null ? b.connections : c.positiveInt("connections").orElse(DEFAULT_CONNECTIONS);
        long rangeSize = b.rangeSize != null ? b.rangeSize : c.size("rangeSize").orElse(DEFAULT_RANGE_SIZE);
        int pieceSize = b.pieceSize != null ? b.pieceSize
                : Math.toIntExact(c.size("pieceSize").orElse((long) DEFAULT_PIECE_SIZE));
        int maxAttempts = b.maxAttempts != null ? b.maxAttempts : c.positiveInt("maxAttempts").orElse(DEFAULT_MAX_ATTEMPTS);
        Duration initialBackoff = b.initialBackoff != null ? b.initialBackoff
                : c.duration("initialBackoff").orElse(DEFAULT_INITIAL_BACKOFF);
        Duration maxBackoff = b.maxBackoff != null ? b.maxBackoff : c.duration("maxBackoff").orElse(DEFAULT_MAX_BACKOFF);
        Duration stallTimeout = b.stallTimeout != null ? b.stallTimeout
                : c.duration("stallTimeout").orElse(DEFAULT_STALL_TIMEOUT);
        Path destination = b.destinationDirectory != null ? b.destinationDirectory
                : c.string("destination").map(Path::of).orElse(Path.of(""));
        Strategy strategy = b.strategy != null ? b.strategy
                : c.parsed("strategy", "one of " + List.of(Strategy.values()), Strategy::parse).orElse(Strategy.FLAT_TREE);
        if (rangeSize < pieceSize) {
            rangeSize = pieceSize;
        }
        SourceConfig source = new SourceConfig(b.client, endpoint, region, b.credentials, pathStyle, httpClient,
                connections, rangeSize, maxAttempts, initialBackoff, maxBackoff, stallTimeout);
        return new Settings(source, destination.toAbsolutePath(), strategy, pieceSize, List.copyOf(b.listeners),
                b.executor, b.ticker != null ? b.ticker : Ticker.systemTicker());
    }
}
