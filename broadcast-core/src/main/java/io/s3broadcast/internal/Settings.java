package io.s3broadcast.internal;

import com.google.common.base.Ticker;
import io.s3broadcast.FetchListener;
import io.s3broadcast.Strategy;
import io.s3broadcast.spi.cluster.ChokePolicy;
import io.s3broadcast.spi.cluster.PieceSizing;
import io.s3broadcast.spi.cluster.WorkSizing;
import io.s3broadcast.metrics.BroadcastMetrics;
import io.s3broadcast.registry.NodeRegistryProvider;
import io.s3broadcast.registry.RegistrySpec;
import io.s3broadcast.registry.StaticRegistry;
import io.s3broadcast.spi.ClusterConfig;
import io.s3broadcast.spi.ConnectionTuning;
import io.s3broadcast.spi.PeerLimits;
import io.s3broadcast.spi.PeerSecurity;
import io.s3broadcast.spi.SourceConfig;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutorService;
import io.s3broadcast.spi.ClusterStrategyProvider;
import software.amazon.awssdk.regions.Region;

/** Every setting of a broadcast, resolved: explicit value, else system property, else environment, else default. */
record Settings(
        SourceConfig source,
        ClusterConfig cluster,
        Path destinationDirectory,
        Strategy strategy,
        Integer configuredPieceSize,
        WorkSizing sizing,
        List<FetchListener> listeners,
        ExecutorService executor,
        Ticker ticker,
        ClusterStrategyProvider clusterProvider) {

    static final int DEFAULT_CONNECTIONS = 16;
    static final ConnectionTuning DEFAULT_CONNECTION_TUNING = ConnectionTuning.hillClimbing();
    static final boolean DEFAULT_HEDGE = false;
    /** Range size cap of the source; the range of each fetch is computed below it unless set ({@link WorkSizing}). */
    static final long DEFAULT_RANGE_SIZE = 32L << 20;
    static final int DEFAULT_PIECE_SIZE = PieceSizing.DEFAULT;
    static final int MIN_PIECE_SIZE = 16 << 10;
    static final int MAX_PIECE_SIZE = 64 << 20;
    static final int DEFAULT_MAX_ATTEMPTS = 10;
    static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
    static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);
    static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(15);
    static final Duration DEFAULT_FIRST_BYTE_TIMEOUT = Duration.ofSeconds(10);
    static final Duration DEFAULT_HEAD_TIMEOUT = Duration.ofSeconds(10);
    /**
     * The AWS CRT client when it is on the class path, else Netty: a fresh JVM's first fetch spent about half the CPU
     * on CRT (docs/results.md, "The first fetch of a fresh JVM").
     */
    static final String DEFAULT_HTTP_CLIENT = "auto";
    /** Work size told to the cluster config when none is set; the run's works are computed ({@link WorkSizing}). */
    static final int DEFAULT_WORK_SIZE = 16;
    static final Duration DEFAULT_EXPECT_TIMEOUT = Duration.ofSeconds(60);
    static final Duration DEFAULT_LINGER = Duration.ofSeconds(30);
    static final Duration DEFAULT_CHOKE_INTERVAL = Duration.ofSeconds(10);
    static final int DEFAULT_UNCHOKE_SLOTS = 4;
    /**
     * Cooperative choking: up to 20 uploads at once, the optimistic one included: every peer the default overlay
     * accepts ({@code ClusterConfig.acceptPeers()}, 16 + 4). With 15 + 1, nodes of a bounded overlay that had accepted
     * 17 to 20 peers kept the rest choked for a whole choke round (docs/scale.md, "N = 1,000 (session 21)"). A group
     * of at most 17 nodes has at most 16 peers: unchoked all the same.
     */
    static final int DEFAULT_COOPERATIVE_UNCHOKE_SLOTS = 19;
    static final int DEFAULT_MAX_REQUESTS_PER_PEER = 8;
    static final String DEFAULT_CHOKE_POLICY = ClusterConfig.COOPERATIVE;
    static final Duration DEFAULT_REQUEST_QUEUE_TIME = Duration.ofSeconds(1);

    /**
     * The piece size of a fetch of {@code objectSize} bytes with {@code strategy} ({@link PieceSizing}), for the nodes
     * the cluster is known to have ({@link #knownNodes}).
     */
    int pieceSize(long objectSize, Strategy strategy) {
        return PieceSizing.of(configuredPieceSize, objectSize, strategy, knownNodes());
    }

    /**
     * The nodes the cluster is known to have before it starts: {@code expectNodes} when set, else the length of a
     * static registry's list (every node of the group is given the same list, so all compute the same piece size),
     * else 0 (not known: a registry that nodes join). N = 16 on a static list sized as for the 8 nodes assumed got
     * pieces twice as large as its own size gives, and its slowest node came about 0.05 T* later (docs/results.md,
     * session 32).
     */
    int knownNodes() {
        if (cluster.expectedNodes() > 0 || cluster.registry() == null) {
            return cluster.expectedNodes();
        }
        try {
            if (RegistrySpec.parse(cluster.registry()) instanceof RegistrySpec.Static s) {
                return StaticRegistry.listed(s).size();
            }
        } catch (IllegalArgumentException e) {
            // The registry fails with its own message when the cluster starts.
        }
        return 0;
    }

    static Settings resolve(BroadcastBuilder b) {
        ConfigSource c = b.config;
        URI endpoint = b.endpoint != null ? b.endpoint
                : c.parsed("endpoint", "a URI such as http://127.0.0.1:9000", URI::create).orElse(null);
        Region region = b.region != null ? b.region : c.string("region").map(Region::of).orElse(null);
        boolean pathStyle = b.pathStyle != null ? b.pathStyle : c.bool("pathStyle").orElse(endpoint != null);
        String httpClient = (b.httpClient != null ? b.httpClient : c.string("httpClient").orElse(DEFAULT_HTTP_CLIENT))
                .toLowerCase(Locale.ROOT);
        if (!httpClient.equals("netty") && !httpClient.equals("crt") && !httpClient.equals("auto")) {
            throw new IllegalArgumentException("unknown httpClient '" + httpClient + "': use auto, netty or crt");
        }
        int connections = b.connections != null ? b.connections : c.positiveInt("connections").orElse(DEFAULT_CONNECTIONS);
        Long explicitRange = b.rangeSize != null ? b.rangeSize : c.size("rangeSize").orElse(null);
        long rangeSize = explicitRange != null ? explicitRange : DEFAULT_RANGE_SIZE;
        Integer configuredPieceSize = b.pieceSize != null ? b.pieceSize
                : c.size("pieceSize").map(Math::toIntExact).orElse(null);
        int pieceSize = configuredPieceSize != null ? configuredPieceSize : DEFAULT_PIECE_SIZE;
        int maxAttempts = b.maxAttempts != null ? b.maxAttempts : c.positiveInt("maxAttempts").orElse(DEFAULT_MAX_ATTEMPTS);
        Duration initialBackoff = b.initialBackoff != null ? b.initialBackoff
                : c.duration("initialBackoff").orElse(DEFAULT_INITIAL_BACKOFF);
        Duration maxBackoff = b.maxBackoff != null ? b.maxBackoff : c.duration("maxBackoff").orElse(DEFAULT_MAX_BACKOFF);
        Duration stallTimeout = b.stallTimeout != null ? b.stallTimeout
                : c.duration("stallTimeout").orElse(DEFAULT_STALL_TIMEOUT);
        Duration firstByteTimeout = b.firstByteTimeout != null ? b.firstByteTimeout
                : c.duration("firstByteTimeout").orElse(DEFAULT_FIRST_BYTE_TIMEOUT);
        Duration headTimeout = b.headTimeout != null ? b.headTimeout
                : c.duration("headTimeout").orElse(DEFAULT_HEAD_TIMEOUT);
        Path destination = b.destinationDirectory != null ? b.destinationDirectory
                : c.string("destination").map(Path::of).orElse(Path.of(""));
        requirePieceSize(pieceSize);
        String registry = b.registry != null ? b.registry : c.string("registry").orElse(null);
        if (registry != null) {
            registry = validRegistry(registry);
        }
        // With a registry the nodes form a cluster, and OVERLAP measured best (docs/bench.md); alone, the flat tree.
        Strategy strategy = b.strategy != null ? b.strategy
                : c.parsed("strategy", "one of " + List.of(Strategy.values()), Strategy::parse)
                        .orElse(registry != null ? Strategy.OVERLAP : Strategy.FLAT_TREE);
        if (rangeSize < pieceSize) {
            rangeSize = pieceSize;
        }
        if (explicitRange != null) {
            explicitRange = rangeSize;
        }
        Integer explicitWork = b.workSize != null ? b.workSize : c.positiveInt("workSize").orElse(null);
        // Ranges, works and connections per fetch are computed from the share (docs/configuration.md); an explicit
        // rangeSize or workSize wins.
        // The count of GETs is tuned while a fetch runs; hedging slow tails is off unless set: each cut dropped
        // what the slow GET had in flight, ~1 MB on the in-process fleet (docs/configuration.md, "Connection
        // tuning and hedging").
        ConnectionTuning tuning = c.parsed("connectionTuning", "adaptive or fixed", ConnectionTuning::parse)
                .orElse(DEFAULT_CONNECTION_TUNING);
        boolean hedge = c.bool("hedge").orElse(DEFAULT_HEDGE);
        WorkSizing sizing = WorkSizing.withOverrides(WorkSizing.computed(connections, tuning, hedge), connections,
                explicitRange, explicitWork);
        Ticker ticker = b.ticker != null ? b.ticker : Ticker.systemTicker();
        String chokePolicy = c.parsed("chokePolicy", "cooperative or tit-for-tat",
                v -> ChokePolicy.Kind.parse(v).toString()).orElse(DEFAULT_CHOKE_POLICY);
        int unchokeSlots = c.positiveInt("unchokeSlots").orElse(chokePolicy.equals(ClusterConfig.COOPERATIVE)
                ? DEFAULT_COOPERATIVE_UNCHOKE_SLOTS : DEFAULT_UNCHOKE_SLOTS);
        ClusterConfig cluster = new ClusterConfig(
                registry,
                b.nodeId != null ? b.nodeId : c.string("nodeId").orElseGet(Settings::defaultNodeId),
                b.listen != null ? b.listen
                        : c.parsed("listen", "host:port, e.g. 0.0.0.0:7070", Settings::parseHostPort)
                                .orElse(new InetSocketAddress("0.0.0.0", 0)),
                b.advertisedHost != null ? b.advertisedHost : c.string("advertisedHost").orElse(null),
                b.groupName != null ? b.groupName : c.string("group").orElse(null),
                b.expectNodes != null ? b.expectNodes
                        : c.parsed("expectNodes", "a whole number >= 0", Integer::parseUnsignedInt).orElse(0),
                b.expectTimeout != null ? b.expectTimeout : c.duration("expectTimeout").orElse(DEFAULT_EXPECT_TIMEOUT),
                explicitWork != null ? explicitWork : DEFAULT_WORK_SIZE,
                b.linger != null ? b.linger : c.duration("linger").orElse(DEFAULT_LINGER),
                c.duration("chokeInterval").orElse(DEFAULT_CHOKE_INTERVAL),
                unchokeSlots,
                c.positiveInt("maxRequestsPerPeer").orElse(DEFAULT_MAX_REQUESTS_PER_PEER),
                security(b, c, registry),
                limits(c),
                ticker,
                chokePolicy,
                c.duration("requestQueueTime").orElse(DEFAULT_REQUEST_QUEUE_TIME),
                b.overlayPeers != null ? b.overlayPeers
                        : c.positiveInt("overlayPeers").orElse(ClusterConfig.DEFAULT_OVERLAY_PEERS),
                c.parsed("catchUpShare", "a fraction in (0, 1], 1 for no pacing", Settings::parseShare)
                        .orElse(ClusterConfig.DEFAULT_CATCH_UP_SHARE));
        SourceConfig source = new SourceConfig(b.client, endpoint, region, b.credentials, pathStyle, httpClient,
                connections, rangeSize, maxAttempts, initialBackoff, maxBackoff, stallTimeout, firstByteTimeout, headTimeout);
        List<FetchListener> listeners = new ArrayList<>(b.listeners);
        if (b.metrics != null ? b.metrics : c.bool("metrics").orElse(true)) {
            BroadcastMetrics.globalIfPresent().ifPresent(listeners::add);
        }
        return new Settings(source, cluster, destination.toAbsolutePath(), strategy, configuredPieceSize, sizing,
                List.copyOf(listeners), b.executor, ticker, b.clusterProvider);
    }

    /**
     * The secret (builder, else {@code s3broadcast.secret} / {@code S3BROADCAST_SECRET}), insecure mode and TLS.
     * A static registry cannot hold a secret, so without one it needs insecure mode.
     */
    static PeerSecurity security(BroadcastBuilder b, ConfigSource c, String registry) {
        byte[] secret = b.secret != null ? b.secret
                : c.string("secret").map(v -> v.getBytes(java.nio.charset.StandardCharsets.UTF_8)).orElse(null);
        boolean insecure = b.insecure || (b.secret == null && c.bool("insecure").orElse(false));
        if (secret != null && insecure) {
            throw new IllegalArgumentException("both a group secret and insecure mode are set (builder, s3broadcast.secret"
                    + " / S3BROADCAST_SECRET, s3broadcast.insecure): drop one");
        }
        if (secret != null && secret.length < 16) {
            throw new IllegalArgumentException("the group secret has " + secret.length + " bytes; use at least 16 random"
                    + " bytes, e.g. the output of `openssl rand -hex 32`");
        }
        if (secret == null && !insecure && registry != null && registry.trim().startsWith("static:")) {
            throw new IllegalArgumentException("a static registry cannot hold a group secret, so any host that can reach"
                    + " the peer port could join: set one with secret(...), s3broadcast.secret or S3BROADCAST_SECRET"
                    + " (the CLI: --secret-file), or accept any peer with insecure() / s3broadcast.insecure=true"
                    + " (the CLI: --insecure) on a trusted network");
        }
        PeerSecurity.Tls tls = b.tls;
        if (tls == null) {
            Optional<String> cert = c.string("tlsCert");
            Optional<String> key = c.string("tlsKey");
            Optional<String> trust = c.string("tlsTrust");
            if (cert.isPresent() || key.isPresent() || trust.isPresent()) {
                tls = PeerSecurity.Tls.fromPem(cert.map(Path::of).orElse(null), key.map(Path::of).orElse(null),
                        trust.map(Path::of).orElse(null));
            }
        }
        return new PeerSecurity(secret, insecure, tls);
    }

    static PeerLimits limits(ConfigSource c) {
        return new PeerLimits(
                c.duration("handshakeTimeout").orElse(PeerLimits.DEFAULT_HANDSHAKE_TIMEOUT),
                c.positiveInt("maxPendingConnections").orElse(PeerLimits.DEFAULT_MAX_PENDING_CONNECTIONS),
                c.positiveInt("maxPeers").orElse(PeerLimits.DEFAULT_MAX_PEERS),
                c.duration("requestTimeout").orElse(PeerLimits.DEFAULT_REQUEST_TIMEOUT),
                c.size("serveRatePerPeer").orElse(0L),
                c.duration("peerIdleTimeout").orElse(PeerLimits.DEFAULT_PEER_IDLE_TIMEOUT));
    }

    /** Piece sizes the checksums and the peer protocol are tuned for; outside them {@code build()} fails. */
    static int requirePieceSize(long bytes) {
        if (bytes < MIN_PIECE_SIZE || bytes > MAX_PIECE_SIZE) {
            throw new IllegalArgumentException("pieceSize " + bytes + " is outside " + MIN_PIECE_SIZE + " (16KiB) to "
                    + MAX_PIECE_SIZE + " (64MiB) bytes: set Broadcast.builder().pieceSize(...) or s3broadcast.pieceSize"
                    + " within it (default 1MiB; the paper used 32KiB)");
        }
        return (int) bytes;
    }

    /** The registry spec, checked when the settings are resolved (at {@code build()}): it parses. */
    static String validRegistry(String spec) {
        parseRegistry(spec);
        return spec;
    }

    private static RegistrySpec parseRegistry(String spec) {
        try {
            return RegistrySpec.parse(spec);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("registry: " + e.getMessage() + ". Set Broadcast.builder().registry(...)"
                    + " or s3broadcast.registry to one of " + RegistrySpec.ACCEPTED_FORMS, e);
        }
    }

    /** At {@code build()}: a provider for the registry's scheme is on the class path, or the message names its module. */
    static void requireRegistryProvider(String spec) {
        RegistrySpec parsed = parseRegistry(spec);
        List<String> schemes = new ArrayList<>();
        for (NodeRegistryProvider p : ServiceLoader.load(
                NodeRegistryProvider.class, Settings.class.getClassLoader())) {
            schemes.add(p.scheme());
        }
        if (!schemes.contains(parsed.scheme())) {
            String module = switch (parsed.scheme()) {
                case "s3" -> "io.s3broadcast:broadcast-s3";
                case "zk" -> "io.s3broadcast:broadcast-zookeeper";
                default -> "the module that provides it";
            };
            throw new IllegalArgumentException("registry '" + spec + "': no provider for '" + parsed.scheme()
                    + "://' on the class path (found " + schemes + "): add " + module);
        }
    }

    /** A fraction in (0, 1]. */
    static double parseShare(String text) {
        double share = Double.parseDouble(text);
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException(share + " is outside (0, 1]");
        }
        return share;
    }

    /** {@code host:port}, {@code [v6]:port} or {@code :port} (all interfaces). */
    static InetSocketAddress parseHostPort(String text) {
        int colon = text.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("no port in '" + text + "'");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = Integer.parseInt(text.substring(colon + 1));
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0-65535");
        }
        return new InetSocketAddress(host.isEmpty() ? "0.0.0.0" : host, port);
    }

    static String defaultNodeId() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "node";
        }
        return host + "-" + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 40);
    }
}
