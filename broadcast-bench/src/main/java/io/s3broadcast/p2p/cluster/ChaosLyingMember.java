package io.s3broadcast.p2p.cluster;

import com.google.common.base.Ticker;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ClusterRun;
import io.s3broadcast.spi.ClusterTask;
import io.s3broadcast.spi.ObjectInfo;
import io.s3broadcast.spi.ObjectSource;
import io.s3broadcast.spi.ObjectSourceProvider;
import io.s3broadcast.spi.PeerLimits;
import io.s3broadcast.spi.PeerSecurity;
import io.s3broadcast.spi.PieceLayout;
import io.s3broadcast.spi.PieceStore;
import io.s3broadcast.spi.SourceConfig;
import io.s3broadcast.spi.SourceListener;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * Bench only, for the {@code chaos} command's {@code liar-member} scenarios: a registry member gone rogue, as a
 * process of its own. It runs the real engine (it holds the group secret, takes its share, reads it from S3 like
 * everyone), but every piece it read itself is served with one byte flipped under the junk's true CRC32C and
 * vouched for with the junk's SHA-256 in {@code DIGESTS}, so no per-piece check can tell; pieces it got from
 * others it relays honestly. It lives in the engine's package for its {@link PieceServing} seam, which the
 * library keeps package-private: no switch in the library turns a node into a liar.
 *
 * <p>Arguments: {@code ENDPOINT PATH_STYLE BUCKET KEY REGISTRY PORT EXPECTED PIECE_SIZE RANGE_SIZE [CORRUPT_PIECES]}
 * (how many of the pieces it vouches for it corrupts, the first ones; default all); S3
 * credentials and region from the environment (the SDK's chain), the secret from {@code S3BROADCAST_SECRET}. It
 * runs until killed.
 */
public final class ChaosLyingMember {

    private ChaosLyingMember() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 9 && args.length != 10) {
            System.err.println("usage: ChaosLyingMember ENDPOINT PATH_STYLE BUCKET KEY REGISTRY PORT EXPECTED PIECE_SIZE"
                    + " RANGE_SIZE [CORRUPT_PIECES] (secret in S3BROADCAST_SECRET)");
            System.exit(2);
        }
        String secret = System.getenv("S3BROADCAST_SECRET");
        if (secret == null || secret.isEmpty()) {
            System.err.println("S3BROADCAST_SECRET is not set: a lying member holds the group secret");
            System.exit(2);
        }
        URI endpoint = URI.create(args[0]);
        boolean pathStyle = Boolean.parseBoolean(args[1]);
        String bucket = args[2];
        String key = args[3];
        String registry = args[4];
        int port = Integer.parseInt(args[5]);
        int expected = Integer.parseInt(args[6]);
        int pieceSize = Integer.parseInt(args[7]);
        long rangeSize = Long.parseLong(args[8]);
        int corrupt = args.length > 9 ? Integer.parseInt(args[9]) : Integer.MAX_VALUE;
        String region = System.getenv().getOrDefault("AWS_REGION", "us-east-1");
        Path dir = Files.createTempDirectory("s3broadcast-liar");
        ObjectSource source = ServiceLoader.load(ObjectSourceProvider.class).findFirst().orElseThrow()
                .create(new SourceConfig(null, endpoint, Region.of(region), DefaultCredentialsProvider.create(),
                        pathStyle, "netty", 4, rangeSize, 3, Duration.ofMillis(100), Duration.ofSeconds(1),
                        Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(10)));
        ObjectInfo info = source.head(bucket, key).get(30, TimeUnit.SECONDS);
        PieceStore store = PieceStore.create(dir.resolve("object.bin"), new PieceLayout(info.size(), pieceSize));
        ClusterConfig config = new ClusterConfig(registry, "liar", new InetSocketAddress("127.0.0.1", port),
                "127.0.0.1", null, expected, Duration.ofMinutes(2), 4, Duration.ofMinutes(10), Duration.ofSeconds(10),
                4, 8, PeerSecurity.fromRegistry().withSecret(secret.getBytes(StandardCharsets.UTF_8)),
                PeerLimits.defaults(), Ticker.systemTicker());
        PeerCluster cluster = PeerCluster.start(config, null, LyingServing.corruptingOwnPieces(corrupt), BanListener.NONE);
        ClusterRun run = cluster.start(new ClusterTask(Strategy.OVERLAP, info, store, source, new SourceListener() { }));
        System.err.println("lying member listening on 127.0.0.1:" + port);
        try {
            run.completion().join();
            // Keep serving junk until the scenario ends this process.
            new java.util.concurrent.CountDownLatch(1).await();
        } finally {
            cluster.close();
            store.close();
            source.close();
        }
    }
}
