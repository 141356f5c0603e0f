package io.s3broadcast.testkit;

import io.s3broadcast.Broadcast;
import io.s3broadcast.CompletedFetch;
import io.s3broadcast.FetchHandle;
import io.s3broadcast.FetchRequest;
import io.s3broadcast.Strategy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * N cluster nodes in this JVM, each a ready {@link Broadcast} pointed at one test S3 server, with a
 * destination directory and a loopback peer port of its own, all in one registry (a static list of their
 * addresses unless another is given). Needs {@code broadcast-s3} and {@code broadcast-p2p} on the test
 * classpath.
 *
 * <pre>{@code
 * try (TestCluster cluster = TestCluster.builder(s3).nodes(3).start()) {
 *   List<CompletedFetch> done = cluster.fetch(object);   // on every node at once, each file checked
 * }
 * }</pre>
 *
 * <p>Or let JUnit start and close one per test with {@link BroadcastCluster @BroadcastCluster(nodes = 3)}.
 */
public final class TestCluster implements AutoCloseable {

  /** How long {@link #fetch} waits for every node by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

  private final List<Broadcast> nodes = new ArrayList<>();
  private final List<Path> directories = new ArrayList<>();
  private final List<String> nodeIds = new ArrayList<>();
  private final List<InetSocketAddress> peerAddresses = new ArrayList<>();
  private final String registry;
  private final Path root;
  private final boolean ownsRoot;
  private final Duration timeout;
  private final String secret;

  private TestCluster(Builder b) {
    this.ownsRoot = b.directory == null;
    this.timeout = b.timeout;
    this.secret =
        b.secret != null ? b.secret : b.registry == null || b.registry.startsWith("static:") ? randomSecret() : null;
    try {
      this.root = ownsRoot ? Files.createTempDirectory("s3broadcast-cluster-") : Files.createDirectories(b.directory);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the cluster's directory " + b.directory, e);
    }
    for (int port : FreePorts.loopback(b.nodes + b.extraMembers)) {
      peerAddresses.add(new InetSocketAddress("127.0.0.1", port));
    }
    this.registry =
        b.registry != null
            ? b.registry
            : "static:" + peerAddresses.stream().map(a -> "127.0.0.1:" + a.getPort()).collect(Collectors.joining(","));
    try {
      for (int i = 0; i < b.nodes; i++) {
        String id = b.idPrefix + i;
        Path dir = Files.createDirectories(root.resolve(id));
        Broadcast.Builder node =
            b.s3.broadcastBuilder()
                .destinationDirectory(dir)
                .nodeId(id)
                .listen(peerAddresses.get(i))
                .advertisedHost("127.0.0.1")
                .connections(4)
                .linger(Duration.ofSeconds(10));
        if (b.strategy != null) {
          node.strategy(b.strategy);
        }
        clusterWide(node, b);
        b.configure.accept(i, node);
        nodeIds.add(id);
        directories.add(dir);
        nodes.add(node.build());
      }
    } catch (IOException | RuntimeException e) {
      close();
      if (e instanceof IOException io) {
        throw new UncheckedIOException("cannot create a node's directory under " + root, io);
      }
      throw (RuntimeException) e;
    }
  }

  /**
   * What every node of one cluster must agree on: the registry, how many nodes to wait for, and the group
   * secret (a static registry has no place to keep one, so its nodes get a random one shared by this cluster;
   * an S3 or ZooKeeper registry generates and holds its own unless one is given).
   */
  private void clusterWide(Broadcast.Builder node, Builder b) {
    node.registry(registry).expectNodes(b.nodes + b.extraMembers, b.expectTimeout);
    if (secret != null) {
      node.secret(secret);
    }
  }

  /** The group secret every node was given; empty when the registry holds one. */
  public Optional<String> secret() {
    return Optional.ofNullable(secret);
  }

  /** A cluster on the server of {@code s3}; nothing starts until {@link Builder#start()}. */
  public static Builder builder(S3Fixture s3) {
    return new Builder(s3);
  }

  public int size() {
    return nodes.size();
  }

  /** Node {@code i}, from 0. */
  public Broadcast node(int i) {
    return nodes.get(i);
  }

  public List<Broadcast> nodes() {
    return List.copyOf(nodes);
  }

  /** Where node {@code i} puts objects fetched without a destination of their own. */
  public Path directory(int i) {
    return directories.get(i);
  }

  public String nodeId(int i) {
    return nodeIds.get(i);
  }

  /**
   * The loopback address node {@code i}'s peer server listens on; from {@link #size()} on, the addresses of
   * the {@link Builder#extraMembers(int) extra members}.
   */
  public InetSocketAddress peerAddress(int i) {
    return peerAddresses.get(i);
  }

  /** The registry spec every node uses. */
  public String registry() {
    return registry;
  }

  /** Starts {@code request} on every node at once; the handles are in node order. */
  public List<FetchHandle> start(FetchRequest request) {
    List<FetchHandle> handles = new ArrayList<>(nodes.size());
    for (Broadcast node : nodes) {
      handles.add(node.fetch(request));
    }
    return handles;
  }

  /**
   * Fetches {@code request} on every node at once and waits for all of them, up to the cluster's
   * timeout; a node that fails or is late fails this call, naming the node.
   */
  public List<CompletedFetch> fetch(FetchRequest request) {
    return await(start(request));
  }

  /**
   * Fetches {@code object} on every node and checks each node's file against it (size and SHA-256),
   * failing with an {@link AssertionError} that names the node.
   */
  public List<CompletedFetch> fetch(StoredObject object) {
    List<CompletedFetch> results = fetch(FetchRequest.of(object.bucket(), object.key()));
    for (int i = 0; i < results.size(); i++) {
      Path file = results.get(i).path();
      long size = size(file);
      if (size != object.size() || !sha256(file).equals(object.sha256())) {
        throw new AssertionError(
            nodeIds.get(i) + "'s " + file + " differs from s3://" + object.bucket() + "/" + object.key()
                + " (" + size + " bytes, object " + object.size() + ")");
      }
    }
    return results;
  }

  /** Waits for every handle (in node order) up to the cluster's timeout. */
  public List<CompletedFetch> await(List<FetchHandle> handles) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<CompletedFetch> results = new ArrayList<>(handles.size());
    for (int i = 0; i < handles.size(); i++) {
      String node = i < nodeIds.size() ? nodeIds.get(i) : "node " + i;
      try {
        results.add(
            handles.get(i).completionFuture().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (ExecutionException e) {
        throw new AssertionError(node + " failed: " + e.getCause(), e.getCause());
      } catch (TimeoutException e) {
        throw new AssertionError(node + " did not finish within " + timeout, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + node, e);
      }
    }
    return results;
  }

  /** Bytes all {@code results} read from S3: about the object's size once, on a working cluster. */
  public static long bytesFromS3(List<CompletedFetch> results) {
    return results.stream().mapToLong(CompletedFetch::bytesFromS3).sum();
  }

  /** Hex SHA-256 of a file, streamed. */
  public static String sha256(Path file) {
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), SeededData.sha256())) {
      in.transferTo(OutputStream.nullOutputStream());
      return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest());
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file, e);
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file, e);
    }
  }

  /** Closes every node (in parallel: each waits for its peers to be done) and deletes the directories it made. */
  @Override
  public void close() {
    nodes.parallelStream().forEach(Broadcast::close);
    if (ownsRoot) {
      Settings.deleteRecursively(root);
    }
  }

  @Override
  public String toString() {
    return "TestCluster[" + nodes.size() + " nodes, " + registry + "]";
  }

  private static String randomSecret() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
  /** Configures a {@link TestCluster}. */
  public static final class Builder {
    private final S3Fixture s3;
    private int nodes = 3;
    private int extraMembers;
    private Strategy strategy;
    private Path directory;
    private String registry;
    private String idPrefix = "node-";
    private String secret;
    private Duration expectTimeout = Duration.ofSeconds(30);
    private Duration timeout = DEFAULT_TIMEOUT;
    private BiConsumer<Integer, Broadcast.Builder> configure = (i, b) -> {};

    private Builder(S3Fixture s3) {
      this.s3 = Objects.requireNonNull(s3, "s3");
    }

    /** How many nodes; default 3. */
    public Builder nodes(int nodes) {
      if (nodes < 1) {
        throw new IllegalArgumentException("a cluster needs at least 1 node, was " + nodes);
      }
      this.nodes = nodes;
      return this;
    }

    /**
     * Members of the static registry besides the nodes, which the test runs itself (a peer that misbehaves,
     * say): their addresses are {@link TestCluster#peerAddress(int) peerAddress(nodes ...)} and every node
     * waits for them too. Default 0.
     */
    public Builder extraMembers(int extraMembers) {
      if (extraMembers < 0) {
        throw new IllegalArgumentException("extraMembers must be >= 0, was " + extraMembers);
      }
      this.extraMembers = extraMembers;
      return this;
    }

    /** Every node's strategy; default the library's (overlap, since the nodes have a registry). */
    public Builder strategy(Strategy strategy) {
      this.strategy = Objects.requireNonNull(strategy, "strategy");
      return this;
    }

    /** Parent of the nodes' directories ({@code DIR/node-0}, ...), kept on close; default a temporary one, deleted. */
    public Builder directory(Path directory) {
      this.directory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /** Another registry spec (e.g. {@code zk://...}); default a static list of the nodes' addresses. */
    public Builder registry(String registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * The group secret of every node; default a random one for a static registry, none (the registry's own)
     * otherwise. Two clusters joining one registry need the same one.
     */
    public Builder secret(String secret) {
      this.secret = Objects.requireNonNull(secret, "secret");
      return this;
    }

    /** Node ids are {@code prefix + i}; default {@code node-}. */
    public Builder idPrefix(String idPrefix) {
      this.idPrefix = Objects.requireNonNull(idPrefix, "idPrefix");
      return this;
    }

    /** How long each node waits for the others to join; default 30 s. */
    public Builder expectTimeout(Duration expectTimeout) {
      this.expectTimeout = Objects.requireNonNull(expectTimeout, "expectTimeout");
      return this;
    }

    /** How long {@link TestCluster#fetch} waits for all nodes; default 2 minutes. */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /** Changes node {@code i}'s builder before it is built (piece size, listeners, ...); called once per node. */
    public Builder configure(BiConsumer<Integer, Broadcast.Builder> configure) {
      this.configure = this.configure.andThen(Objects.requireNonNull(configure, "configure"));
      return this;
    }

    /** Builds the nodes. Peer servers bind on each node's first cluster fetch. */
    public TestCluster start() {
      return new TestCluster(this);
    }
  }
}
