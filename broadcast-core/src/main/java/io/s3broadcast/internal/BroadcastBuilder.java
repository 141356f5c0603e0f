package io.s3broadcast.internal;

import com.google.common.base.Ticker;
import io.s3broadcast.Broadcast;
import io.s3broadcast.FetchListener;
import io.s3broadcast.Strategy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/** The builder behind {@link Broadcast#builder()}; {@link Settings} resolves what it leaves unset. */
public final class BroadcastBuilder implements Broadcast.Builder {

    S3AsyncClient client;
    URI endpoint;
    Region region;
    AwsCredentialsProvider credentials;
    Boolean pathStyle;
    String httpClient;
    Path destinationDirectory;
    Strategy strategy;
    final List<FetchListener> listeners = new ArrayList<>();
    Integer connections;
    Long rangeSize;
    Integer pieceSize;
    Integer maxAttempts;
    Duration initialBackoff;
    Duration maxBackoff;
    Duration stallTimeout;
    Duration firstByteTimeout;
    Duration headTimeout;
    ExecutorService executor;
    Ticker ticker;
    String registry;
    String nodeId;
    java.net.InetSocketAddress listen;
    String advertisedHost;
    String groupName;
    Integer expectNodes;
    Duration expectTimeout;
    Integer workSize;
    Integer overlayPeers;
    Duration linger;
    byte[] secret;
    boolean insecure;
    io.s3broadcast.spi.PeerSecurity.Tls tls;
    Boolean metrics;
    io.s3broadcast.spi.ClusterStrategyProvider clusterProvider;
    ConfigSource config = ConfigSource.system();

    @Override
    public BroadcastBuilder s3Client(S3AsyncClient client) {
        this.client = Objects.requireNonNull(client, "client");
        return this;
    }

    @Override
    public BroadcastBuilder endpoint(URI endpoint) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        return this;
    }

    @Override
    public BroadcastBuilder region(Region region) {
        this.region = Objects.requireNonNull(region, "region");
        return this;
    }

    @Override
    public BroadcastBuilder credentialsProvider(AwsCredentialsProvider credentials) {
        this.credentials = Objects.requireNonNull(credentials, "credentials");
        return this;
    }

    @Override
    public BroadcastBuilder pathStyle(boolean pathStyle) {
        this.pathStyle = pathStyle;
        return this;
    }

    @Override
    public BroadcastBuilder httpClient(String httpClient) {
        this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
        return this;
    }

    @Override
    public BroadcastBuilder destinationDirectory(Path directory) {
        this.destinationDirectory = Objects.requireNonNull(directory, "directory");
        return this;
    }

    @Override
    public BroadcastBuilder strategy(Strategy strategy) {
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        return this;
    }

    @Override
    public BroadcastBuilder addListener(FetchListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    @Override
    public BroadcastBuilder connections(int connections) {
        this.connections = requirePositive(connections, "connections");
        return this;
    }

    @Override
    public BroadcastBuilder rangeSize(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("rangeSize must be > 0 bytes, was " + bytes);
        }
        this.rangeSize = bytes;
        return this;
    }

    @Override
    public BroadcastBuilder pieceSize(int bytes) {
        this.pieceSize = Settings.requirePieceSize(bytes);
        return this;
    }

    @Override
    public BroadcastBuilder maxAttempts(int attempts) {
        this.maxAttempts = requirePositive(attempts, "maxAttempts");
        return this;
    }

    @Override
    public BroadcastBuilder retryBackoff(Duration initial, Duration max) {
        if (initial.isNegative() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("retryBackoff needs 0 <= initial <= max, was " + initial + ", " + max);
        }
        this.initialBackoff = initial;
        this.maxBackoff = max;
        return this;
    }

    @Override
    public BroadcastBuilder stallTimeout(Duration timeout) {
        this.stallTimeout = requirePositive(timeout, "stallTimeout");
        return this;
    }

    @Override
    public BroadcastBuilder firstByteTimeout(Duration timeout) {
        this.firstByteTimeout = requirePositive(timeout, "firstByteTimeout");
        return this;
    }

    @Override
    public BroadcastBuilder headTimeout(Duration timeout) {
        this.headTimeout = requirePositive(timeout, "headTimeout");
        return this;
    }

    @Override
    public BroadcastBuilder registry(String spec) {
        this.registry = Objects.requireNonNull(spec, "spec");
        return this;
    }

    @Override
    public BroadcastBuilder nodeId(String nodeId) {
        if (nodeId.isBlank()) {
            throw new IllegalArgumentException("nodeId must not be blank");
        }
        this.nodeId = nodeId;
        return this;
    }

    @Override
    public BroadcastBuilder listen(java.net.InetSocketAddress address) {
        this.listen = Objects.requireNonNull(address, "address");
        return this;
    }

    @Override
    public BroadcastBuilder advertisedHost(String host) {
        this.advertisedHost = Objects.requireNonNull(host, "host");
        return this;
    }

    @Override
    public BroadcastBuilder groupName(String name) {
        this.groupName = Objects.requireNonNull(name, "name");
        return this;
    }

    @Override
    public BroadcastBuilder expectNodes(int nodes, Duration timeout) {
        if (nodes < 0 || timeout.isNegative()) {
            throw new IllegalArgumentException("expectNodes needs nodes >= 0 and a timeout >= 0, was " + nodes + ", " + timeout);
        }
        this.expectNodes = nodes;
        this.expectTimeout = timeout;
        return this;
    }

    @Override
    public BroadcastBuilder workSize(int pieces) {
        this.workSize = requirePositive(pieces, "workSize");
        return this;
    }

    @Override
    public BroadcastBuilder overlayPeers(int peers) {
        this.overlayPeers = requirePositive(peers, "overlayPeers");
        return this;
    }

    @Override
    public BroadcastBuilder linger(Duration linger) {
        if (linger.isNegative()) {
            throw new IllegalArgumentException("linger must be >= 0, was " + linger);
        }
        this.linger = linger;
        return this;
    }

    @Override
    public BroadcastBuilder secret(String secret) {
        return secret(Objects.requireNonNull(secret, "secret").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public BroadcastBuilder secret(byte[] secret) {
        this.secret = Objects.requireNonNull(secret, "secret").clone();
        return this;
    }

    @Override
    public BroadcastBuilder insecure() {
        this.insecure = true;
        return this;
    }

    @Override
    public BroadcastBuilder tls(Path certChain, Path privateKey, Path trustedCerts) {
        this.tls = io.s3broadcast.spi.PeerSecurity.Tls.fromPem(certChain, privateKey, trustedCerts);
        return this;
    }

    @Override
    public BroadcastBuilder tls(java.security.KeyStore keyStore, char[] keyPassword, java.security.KeyStore trustStore) {
        this.tls = io.s3broadcast.spi.PeerSecurity.Tls.fromKeyStores(keyStore, keyPassword, trustStore);
        return this;
    }

    @Override
    public BroadcastBuilder executor(ExecutorService executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    @Override
    public BroadcastBuilder ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return this;
    }

    @Override
    public BroadcastBuilder metrics(boolean enabled) {
        this.metrics = enabled;
        return this;
    }

    @Override
    public BroadcastBuilder clusterStrategy(io.s3broadcast.spi.ClusterStrategyProvider provider) {
        this.clusterProvider = Objects.requireNonNull(provider, "provider");
        return this;
    }

    /** Replaces where unset values are read from; for tests. */
    BroadcastBuilder config(ConfigSource config) {
        this.config = config;
        return this;
    }

    @Override
    public Broadcast build() {
        return new DefaultBroadcast(Settings.resolve(this));
    }

    private static Duration requirePositive(Duration value, String name) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
        return value;
    }

    private static int requirePositive(int value, String name) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
        return value;
    }
}
