package io.s3broadcast;

import com.google.common.base.Ticker;
import io.s3broadcast.internal.BroadcastBuilder;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * Puts an S3 object on local disk, verified, and returns where it is.
 *
 * <pre>{@code
 * CompletedFetch done = Broadcast.fetch("my-bucket", "models/weights.bin");
 * Path file = done.path();
 * }</pre>
 *
 * <p>The static methods use a broadcast configured from system properties ({@code s3broadcast.*}),
 * environment variables ({@code S3BROADCAST_*}) and defaults; see {@code docs/configuration.md}. For
 * more control build one with {@link #builder()} and keep it for many fetches: it owns an S3 client and
 * threads, released by {@link #close()}.
 *
 * <p>Asynchronous methods never throw: errors complete the returned future.
 */
public interface Broadcast extends AutoCloseable {

    /**
     * Fetches {@code s3://bucket/key} with the default configuration and waits for it; the file goes to the
     * destination directory (default the working directory) under the key's last segment. A failure is thrown
     * as the {@link BroadcastException} itself.
     */
    static CompletedFetch fetch(String bucket, String key) {
        return fetchOnce(FetchRequest.of(bucket, key));
    }

    /** Fetches {@code s3://bucket/key} to the file {@code destination} with the default configuration and waits. */
    static CompletedFetch fetch(String bucket, String key, Path destination) {
        return fetchOnce(FetchRequest.builder().bucket(bucket).key(key).destination(destination).build());
    }

    private static CompletedFetch fetchOnce(FetchRequest request) {
        try (Broadcast broadcast = create()) {
            return Futures.join(broadcast.fetch(request).completionFuture());
        }
    }

    /**
     * Starts fetching {@code s3://bucket/key} with the default configuration. The broadcast made for it
     * is closed when the future completes.
     */
    static CompletableFuture<CompletedFetch> fetchAsync(String bucket, String key) {
        Broadcast broadcast;
        try {
            broadcast = create();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<CompletedFetch> future = broadcast.fetch(FetchRequest.of(bucket, key)).completionFuture();
        future.whenComplete((r, e) -> broadcast.close());
        return future;
    }

    /** A broadcast configured from system properties, environment variables and defaults. */
    static Broadcast create() {
        return builder().build();
    }

    static Builder builder() {
        return new BroadcastBuilder();
    }

    /** Starts a fetch. Never throws for a failed fetch: the handle's future completes exceptionally. */
    FetchHandle fetch(FetchRequest request);

    /**
     * Starts the fetch {@code request} builds: {@code broadcast.fetch(r -> r.bucket("b").key("k"))}. An invalid
     * request (no bucket or key) throws {@link IllegalArgumentException} here, as {@link FetchRequest.Builder#build()}
     * does.
     */
    default FetchHandle fetch(Consumer<FetchRequest.Builder> request) {
        return fetch(FetchRequest.of(request));
    }

    /**
     * Fetches every object under {@code prefix} in {@code bucket} (a dataset directory, a model's shards) into
     * {@code directory}, keeping the key's path below the prefix ({@code prefix/a/b.bin} goes to
     * {@code directory/a/b.bin}), as one broadcast: the objects are fetched at once on this broadcast's one S3
     * client (its connections shared between them) and, for cluster strategies, its one peer server; each is
     * verified and committed like a single fetch (and, with the flat tree, skipped when unchanged). Keys ending in
     * {@code /} are directory markers and are left out; a key that would land outside {@code directory} fails the
     * whole call before anything is read.
     *
     * <p>One progress covers them all: the broadcast's listeners hear {@code fetchInitiated} once with the total
     * size of the listed objects, {@code bytesTransferred} with that total as pieces of any object arrive,
     * {@code fetchComplete} once per object, and {@code fetchFailed} once if the whole call fails;
     * {@link FetchAllHandle#progress()} gives the same snapshot. Never throws for a failed fetch: the handle's
     * future completes with the results in key order, or with the first failure (the others are then cancelled).
     */
    FetchAllHandle fetchAll(String bucket, String prefix, Path directory);

    /** Cancels fetches still under way and releases the S3 client (unless it was passed in) and threads. */
    @Override
    void close();

    /**
     * Configures a {@link Broadcast}. A value set here wins over a system property, which wins over an
     * environment variable, which wins over the default.
     */
    interface Builder {

        /** An S3 client to use as is; the caller keeps ownership and closes it. Endpoint and credentials settings are then ignored. */
        Builder s3Client(S3AsyncClient client);

        /** An S3-compatible endpoint, e.g. {@code http://127.0.0.1:9000}. Property {@code s3broadcast.endpoint}. */
        Builder endpoint(URI endpoint);

        /** Property {@code s3broadcast.region}; otherwise the SDK's default region chain. */
        Builder region(Region region);

        /** Otherwise the SDK's default credentials chain. */
        Builder credentialsProvider(AwsCredentialsProvider credentials);

        /** Path-style addressing; on by default when an endpoint is set. Property {@code s3broadcast.pathStyle}. */
        Builder pathStyle(boolean pathStyle);

        /**
         * {@code auto} (the default: CRT when {@code aws-crt-client} and {@code aws-crt} are on the class path and its
         * native library loads, else Netty), {@code netty} or {@code crt}: the SDK HTTP client to build. Property
         * {@code s3broadcast.httpClient}.
         */
        Builder httpClient(String httpClient);

        /** Where objects go when a request names no destination. Property {@code s3broadcast.destination}; default the working directory. */
        Builder destinationDirectory(Path directory);

        /** Default strategy. Property {@code s3broadcast.strategy}. */
        Builder strategy(Strategy strategy);

        /** Hears every fetch of this broadcast. */
        Builder addListener(FetchListener listener);

        /**
         * Whether to record Micrometer meters in Micrometer's global registry when Micrometer is on the class path
         * (see {@link io.s3broadcast.metrics.BroadcastMetrics}); default true, and nothing happens without Micrometer.
         * Property {@code s3broadcast.metrics}.
         */
        Builder metrics(boolean enabled);

        /** Concurrent ranged GETs per node. Property {@code s3broadcast.connections}. */
        Builder connections(int connections);

        /** Bytes per ranged GET, e.g. 8 MiB. Property {@code s3broadcast.rangeSize} (accepts {@code 8MiB}). */
        Builder rangeSize(long bytes);

        /** Bytes per piece: the unit of checksums and of peer exchange. Property {@code s3broadcast.pieceSize}. */
        Builder pieceSize(int bytes);

        /** Attempts per range before the fetch fails. Property {@code s3broadcast.maxAttempts}. */
        Builder maxAttempts(int attempts);

        /** First and largest retry delay; delays double with full jitter. */
        Builder retryBackoff(Duration initial, Duration max);

        /** A response body that delivers nothing for this long is abandoned and retried. Property {@code s3broadcast.stallTimeout}. */
        Builder stallTimeout(Duration timeout);

        /**
         * A ranged GET whose response has not begun this long after it was sent is abandoned and retried.
         * Property {@code s3broadcast.firstByteTimeout}; default 10 s.
         */
        Builder firstByteTimeout(Duration timeout);

        /**
         * Limit on each attempt of the HEAD that starts a fetch (and of the part-size requests that may follow
         * it); an attempt that runs out is logged and retried, up to {@code maxAttempts}. Property
         * {@code s3broadcast.headTimeout}; default 10 s.
         */
        Builder headTimeout(Duration timeout);

        /**
         * How nodes find each other for cluster strategies: {@code static:host:port,host:port},
         * {@code s3://bucket/prefix} or {@code zk://host:port/path}. Property {@code s3broadcast.registry}.
         */
        Builder registry(String spec);

        /** This node's id in a cluster, unique in the group. Property {@code s3broadcast.nodeId}; default host name plus a random suffix. */
        Builder nodeId(String nodeId);

        /** Address the peer server binds. Property {@code s3broadcast.listen} ({@code host:port}); default {@code 0.0.0.0:0}. */
        Builder listen(java.net.InetSocketAddress address);

        /** Host other nodes reach this one at. Property {@code s3broadcast.advertisedHost}; default chosen among this host's interfaces. */
        Builder advertisedHost(String host);

        /** Separates broadcasts of the same object. Property {@code s3broadcast.group}. */
        Builder groupName(String name);

        /**
         * Waits for {@code nodes} nodes (this one included) to join, up to {@code timeout}, then starts with
         * whoever is there. Properties {@code s3broadcast.expectNodes}, {@code s3broadcast.expectTimeout}.
         */
        Builder expectNodes(int nodes, Duration timeout);

        /** Pieces per work, the unit of stealing. Property {@code s3broadcast.workSize}. */
        Builder workSize(int pieces);

        /**
         * The peers each node keeps (its overlay, default 16): it dials random members until it has this many and
         * replaces those that finish or die; a group of at most {@code peers + 1} nodes is a full mesh. Property
         * {@code s3broadcast.overlayPeers}.
         */
        Builder overlayPeers(int peers);

        /** How long a complete node keeps serving peers that are not done. Property {@code s3broadcast.linger}. */
        Builder linger(Duration linger);

        /**
         * The group secret every node of a cluster proves it holds before it gets anything from a peer (at least 16
         * bytes; {@code openssl rand -hex 32} makes a good one). Property {@code s3broadcast.secret}, environment
         * {@code S3BROADCAST_SECRET}. Without one, an S3 or ZooKeeper registry holds a secret generated by the
         * first node; a static registry refuses to start unless {@link #insecure()}.
         */
        Builder secret(String secret);

        /** The group secret as bytes; see {@link #secret(String)}. */
        Builder secret(byte[] secret);

        /**
         * Accepts any peer of the group without a secret. Only for a network where every host is trusted.
         * Property {@code s3broadcast.insecure=true}.
         */
        Builder insecure();

        /**
         * Mutual TLS between nodes from PEM files: this node's certificate chain, its PKCS#8 private key and the
         * certificates it trusts (the cluster's CA). Properties {@code s3broadcast.tlsCert},
         * {@code s3broadcast.tlsKey}, {@code s3broadcast.tlsTrust}.
         */
        Builder tls(Path certChain, Path privateKey, Path trustedCerts);

        /** Mutual TLS between nodes from key stores; see {@link #tls(Path, Path, Path)}. */
        Builder tls(java.security.KeyStore keyStore, char[] keyPassword, java.security.KeyStore trustStore);

        /** Runs blocking work (file creation, verification, commit); the caller owns it. Default: threads owned by the broadcast. */
        Builder executor(ExecutorService executor);

        /** Time source for durations and rates; tests pass a fake one. */
        Builder ticker(Ticker ticker);

        /**
         * Advanced: what makes the engine of cluster strategies, instead of the one {@link java.util.ServiceLoader}
         * finds ({@code broadcast-p2p}'s). A bench passes a customised one, such as {@code
         * NettyClusterProvider.withPeerChannelHandler} to emulate each in-process node's link; applications
         * leave it unset.
         */
        Builder clusterStrategy(io.s3broadcast.spi.ClusterStrategyProvider provider);

        Broadcast build();
    }
}
