package io.s3broadcast.p2p.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchListener;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.S3Fixture;
import io.s3broadcast.testkit.StoredObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * N nodes in one JVM, each its own {@link Broadcast} with its own destination directory and peer port, all
 * in one static registry (or a given one): {@code Swarm.of(s3, dir, strategy, n).start(object)}.
 */
final class Swarm implements AutoCloseable {

    static final int PIECE_SIZE = 64 * 1024;

    final List<Broadcast> nodes = new ArrayList<>();
    final List<Path> dirs = new ArrayList<>();
    final List<Integer> ports;
    final List<FetchHandle> handles = new ArrayList<>();
    private final S3Fixture s3;
    private final Strategy strategy;

    /** The group secret of swarms in a static registry. */
    static final String SECRET = "swarm-test-secret-0123456789";

    private Swarm(S3Fixture s3, Path dir, Strategy strategy, int n, String registry, IntFunction<FetchListener> listeners,
            String idPrefix) {
        this(s3, dir, strategy, n, 0, registry, listeners, idPrefix);
    }

    /** {@code extra} more members in the static registry ({@link #ports} after the nodes'), run by the test itself. */
    private Swarm(S3Fixture s3, Path dir, Strategy strategy, int n, int extra, String registry,
            IntFunction<FetchListener> listeners, String idPrefix) {
        this.s3 = s3;
        this.strategy = strategy;
        this.ports = freePorts(n + extra);
        String spec = registry != null ? registry
                : "static:" + ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
        for (int i = 0; i < n; i++) {
            Path d = dir.resolve(idPrefix + i);
            try {
                Files.createDirectories(d);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            dirs.add(d);
            Broadcast.Builder b = Broadcast.builder()
                    .endpoint(s3.endpoint())
                    .region(s3.region())
                    .credentialsProvider(s3.credentialsProvider())
                    .destinationDirectory(d)
                    .strategy(strategy)
                    .registry(spec)
                    .nodeId(idPrefix + i)
                    .listen(new InetSocketAddress("127.0.0.1", ports.get(i)))
                    .advertisedHost("127.0.0.1")
                    .expectNodes(n + extra, Duration.ofSeconds(30))
                    .pieceSize(PIECE_SIZE)
                    .rangeSize(4L * PIECE_SIZE)
                    .connections(4)
                    .workSize(4)
                    .linger(Duration.ofSeconds(10));
            if (spec.startsWith("static:")) {
                b.secret(SECRET); // an S3 or ZooKeeper registry generates and holds one
            }
            if (listeners != null) {
                FetchListener l = listeners.apply(i);
                if (l != null) {
                    b.addListener(l);
                }
            }
            nodes.add(b.build());
        }
    }

    static Swarm of(S3Fixture s3, Path dir, Strategy strategy, int n) {
        return new Swarm(s3, dir, strategy, n, null, null, "node-");
    }

    static Swarm of(S3Fixture s3, Path dir, Strategy strategy, int n, String registry, IntFunction<FetchListener> listeners) {
        return new Swarm(s3, dir, strategy, n, registry, listeners, "node-");
    }

    /** Nodes named {@code idPrefix + i}, e.g. a second swarm joining the first one's registry. */
    static Swarm of(S3Fixture s3, Path dir, Strategy strategy, int n, String registry, IntFunction<FetchListener> listeners,
            String idPrefix) {
        return new Swarm(s3, dir, strategy, n, registry, listeners, idPrefix);
    }

    /** {@code n} nodes, and {@code extra} more members of the static registry that the test runs itself. */
    static Swarm withExtraMembers(S3Fixture s3, Path dir, Strategy strategy, int n, int extra) {
        return new Swarm(s3, dir, strategy, n, extra, null, null, "node-");
    }

    /** Starts the fetch on every node at once. */
    Swarm start(StoredObject object) {
        for (Broadcast b : nodes) {
            handles.add(b.fetch(FetchRequest.of(object.bucket(), object.key())));
        }
        return this;
    }

    /** Waits for every fetch that was not killed and checks its file against the object. */
    List<CompletedFetch> awaitAll(StoredObject object, List<Integer> killed) throws Exception {
        List<CompletedFetch> done = new ArrayList<>();
        for (int i = 0; i < handles.size(); i++) {
            if (killed.contains(i)) {
                continue;
            }
            CompletedFetch r = handles.get(i).completionFuture().get(120, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(object.size(), Files.size(r.path()), "size on node " + i);
            assertEquals(object.sha256(), sha256(r.path()), "SHA-256 on node " + i);
            done.add(r);
        }
        return done;
    }

    static long bytesFromS3(List<CompletedFetch> results) {
        return results.stream().mapToLong(CompletedFetch::bytesFromS3).sum();
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), MessageDigest.getInstance("SHA-256"))) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
            return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Integer> freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
                s.setReuseAddress(true);
                sockets.add(s);
            }
            return sockets.stream().map(ServerSocket::getLocalPort).collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // free anyway
                }
            }
        }
    }

    @Override
    public void close() {
        nodes.parallelStream().forEach(Broadcast::close);
    }
}
