package io.s3broadcast.testkit.proxy;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy for plain HTTP/1.1 between an S3 client and an S3 server on loopback, which injects
 * faults into chosen requests and limits response bandwidth.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress("127.0.0.1", s3Port))) {
 *   S3Client s3 = S3Client.builder().endpointOverride(proxy.endpoint())...build();
 *   Rule slow = proxy.add(Rule.forGets().times(2).inject(Fault.slowDown()));
 *   proxy.add(Rule.forGets().withRange().inject(Fault.resetAfter(1 << 20)));
 *   proxy.setPerConnectionResponseRate(10 << 20); // 10 MiB/s per connection
 *   ...
 *   assertThat(slow.injected()).isEqualTo(2);
 *   assertThat(proxy.stats().faults(FaultKind.RESET)).isEqualTo(1);
 * }
 * }</pre>
 *
 * <p>Each client connection gets its own upstream connection. The proxy reads request and response
 * heads to find message boundaries on keep-alive connections and streams bodies through a fixed
 * buffer, so memory per connection is bounded whatever the body size and a slow client slows the
 * upstream read (backpressure). Bytes are forwarded unchanged, headers included ({@code Host} too,
 * so SigV4 signatures made for the proxy's endpoint stay valid). Two threads serve each connection.
 *
 * <p>To emulate S3 as a fleet sees it, give it an {@link S3Profile} ({@link Builder#profile}): every GET response
 * then draws its own rate and first-byte latency, under per-connection and aggregate caps. Response bytes are
 * counted per source ({@link ProxyStats#bytesToClientBySource()}): per client IP address, or per labelled port
 * ({@link #openPort}) whose connections may also share a {@link Throttle}, e.g. one emulated node's download link.
 */
public final class FaultProxy implements Closeable {
  /** A bandwidth limit meaning no limit. */
  public static final long UNLIMITED = 0;

  private static final Logger log = LoggerFactory.getLogger(FaultProxy.class);

  /** How many {@link ServedRequest}s {@link #servedRequests()} keeps (the most recent). */
  static final int SERVED_REQUESTS_KEPT = 100_000;

  private final InetSocketAddress upstream;
  private final ThrottleClock clock;
  private final ServerSocket server;
  private final InetAddress bindAddress;
  private final S3Profile profile;
  private final Random random;
  private final ArrayDeque<ServedRequest> served = new ArrayDeque<>();
  private final List<Port> ports = new CopyOnWriteArrayList<>();
  private final ExecutorService threads;
  private final TokenBucket aggregate;
  private final Counters counters = new Counters();
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  private final Set<ProxyConnection> connections = ConcurrentHashMap.newKeySet();
  private final AtomicLong connectionIds = new AtomicLong();
  private volatile long perConnectionRate;
  private volatile boolean closed;

  private FaultProxy(Builder builder) throws IOException {
    this.upstream = builder.upstream;
    this.clock = builder.clock;
    this.profile = builder.profile;
    this.random = new Random(builder.seed);
    long aggregateRate = builder.aggregateRate;
    long connectionRate = builder.perConnectionRate;
    if (profile != null) {
      aggregateRate = aggregateRate != UNLIMITED ? aggregateRate : profile.aggregateCap();
      connectionRate = connectionRate != UNLIMITED ? connectionRate : profile.perConnectionCap();
    }
    this.aggregate = new TokenBucket(aggregateRate, clock);
    this.perConnectionRate = connectionRate;
    this.bindAddress = builder.bindAddress;
    this.server = new ServerSocket(builder.port, 128, bindAddress);
    int port = server.getLocalPort();
    AtomicLong threadIds = new AtomicLong();
    ThreadFactory factory =
        task -> {
          Thread t = new Thread(task, "fault-proxy-" + port + "-" + threadIds.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    this.threads = Executors.newCachedThreadPool(factory);
    Port main = new Port(null, server, null);
    threads.execute(() -> acceptLoop(main));
  }

  /** Starts a proxy to {@code upstream} on a free loopback port, with no rules and no limits. */
  public static FaultProxy start(InetSocketAddress upstream) throws IOException {
    return builder(upstream).start();
  }

  public static Builder builder(InetSocketAddress upstream) {
    return new Builder(upstream);
  }

  /** Where clients connect: {@code http://127.0.0.1:<port>}. */
  public URI endpoint() {
    return URI.create("http://" + hostOf(server) + ":" + address().getPort());
  }

  private static String hostOf(ServerSocket socket) {
    InetAddress a = socket.getInetAddress();
    String host = a.isAnyLocalAddress() ? InetAddress.getLoopbackAddress().getHostAddress() : a.getHostAddress();
    return host.contains(":") ? "[" + host + "]" : host;
  }

  /** The listening address. */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  /** Where requests are forwarded. */
  public InetSocketAddress upstream() {
    return upstream;
  }

  /**
   * Opens another listening port on the proxy's bind address whose response bytes are counted under {@code label}
   * and, when {@code link} is not null, also charged to it (an emulated node's download link, shared with whatever
   * else charges it). Closed with the proxy.
   */
  public URI openPort(String label, Throttle link) throws IOException {
    Objects.requireNonNull(label, "label");
    ServerSocket socket = new ServerSocket(0, 128, bindAddress);
    Port port = new Port(label, socket, link == null ? null : link.bucket());
    ports.add(port);
    if (closed) {
      socket.close();
      throw new IOException("proxy closed");
    }
    execute(() -> acceptLoop(port));
    return URI.create("http://" + hostOf(socket) + ":" + socket.getLocalPort());
  }

  /** The S3 profile responses follow, or null. */
  public S3Profile profile() {
    return profile;
  }

  /** The most recent responses served under the profile (at most {@value #SERVED_REQUESTS_KEPT}), oldest first. */
  public List<ServedRequest> servedRequests() {
    synchronized (served) {
      return List.copyOf(served);
    }
  }

  /** Adds a rule after the existing ones and returns it. */
  public Rule add(Rule rule) {
    rules.add(Objects.requireNonNull(rule));
    return rule;
  }

  /** Removes a rule; requests it already claimed still get its fault. */
  public boolean remove(Rule rule) {
    return rules.remove(rule);
  }

  /** Removes all rules and ends their stalls. */
  public void clearRules() {
    for (Rule rule : rules) {
      rules.remove(rule);
      rule.release();
    }
  }

  /** The current rules, in the order they are asked. */
  public List<Rule> rules() {
    return List.copyOf(rules);
  }

  /** Ends every stall in progress. */
  public void releaseStalls() {
    rules.forEach(Rule::release);
  }

  /** Limits the response bytes per second of all connections together; {@link #UNLIMITED} lifts it. */
  public void setAggregateResponseRate(long bytesPerSecond) {
    aggregate.setRate(bytesPerSecond);
  }

  public long aggregateResponseRate() {
    return aggregate.rate();
  }

  /**
   * Limits the response bytes per second of each connection, existing and future; {@link
   * #UNLIMITED} lifts it.
   */
  public void setPerConnectionResponseRate(long bytesPerSecond) {
    perConnectionRate = Math.max(0, bytesPerSecond);
    for (ProxyConnection connection : connections) {
      connection.bucket().setRate(perConnectionRate);
    }
  }

  public long perConnectionResponseRate() {
    return perConnectionRate;
  }

  /** A snapshot of the counters. */
  public ProxyStats stats() {
    return counters.snapshot();
  }

  /** Client connections currently open. */
  public int openConnections() {
    return connections.size();
  }

  /** Stops listening, closes every connection and ends every stall. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      log.debug("closing listener: {}", e.toString());
    }
    for (Port port : ports) {
      try {
        port.socket().close();
      } catch (IOException e) {
        log.debug("closing listener: {}", e.toString());
      }
    }
    for (ProxyConnection connection : connections) {
      connection.close();
    }
    releaseStalls();
    threads.shutdownNow();
    try {
      if (!threads.awaitTermination(10, TimeUnit.SECONDS)) {
        log.warn("fault proxy threads still running 10 s after close");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "FaultProxy[" + endpoint() + " -> " + upstream + "]";
  }

  /** A listening socket: the main one (label null: count by client address) or one from {@link #openPort}. */
  private record Port(String label, ServerSocket socket, TokenBucket link) {}

  private void acceptLoop(Port port) {
    ServerSocket listener = port.socket();
    Thread.currentThread().setName("fault-proxy-" + listener.getLocalPort() + "-accept");
    while (!closed) {
      Socket socket;
      try {
        socket = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          log.warn("accept failed; proxy stops accepting", e);
        }
        return;
      }
      counters.connections.increment();
      try {
        socket.setTcpNoDelay(true);
        TokenBucket bucket = new TokenBucket(perConnectionRate, clock);
        String source = port.label() != null ? port.label() : socket.getInetAddress().getHostAddress();
        ProxyConnection connection =
            new ProxyConnection(this, connectionIds.incrementAndGet(), socket, bucket, source, port.link());
        connections.add(connection);
        bucket.setRate(perConnectionRate); // in case it changed while registering
        if (closed) {
          connection.close();
          return;
        }
        execute(connection::run);
      } catch (IOException | RejectedExecutionException e) {
        log.debug("dropping connection: {}", e.toString());
        try {
          socket.close();
        } catch (IOException ignored) {
          // nothing more to do
        }
      }
    }
  }

  void execute(Runnable task) {
    threads.execute(task);
  }

  Rule claim(RequestHead head) {
    for (Rule rule : rules) {
      if (rule.claim(head)) {
        return rule;
      }
    }
    return null;
  }

  void recordFault(Rule rule) {
    counters.fault(rule.fault().kind());
    rule.recordInjected();
  }

  void closed(ProxyConnection connection) {
    connections.remove(connection);
  }

  Counters counters() {
    return counters;
  }

  TokenBucket aggregateBucket() {
    return aggregate;
  }

  ThrottleClock clock() {
    return clock;
  }

  /** A rate (0 when the profile has no rate distribution) and a first-byte latency for one GET response. */
  long[] drawRequest() {
    if (profile == null) {
      return new long[] {0, 0};
    }
    synchronized (random) {
      long rate = profile.rates() == null ? 0 : profile.rates().draw(random);
      long latency = profile.firstByte().draw(random);
      return new long[] {rate, latency};
    }
  }

  void recordServed(ServedRequest request) {
    synchronized (served) {
      if (served.size() == SERVED_REQUESTS_KEPT) {
        served.removeFirst();
      }
      served.addLast(request);
    }
  }

  /** Builds and starts a {@link FaultProxy}. */
  public static final class Builder {
    private final InetSocketAddress upstream;
    private long aggregateRate = UNLIMITED;
    private long perConnectionRate = UNLIMITED;
    private ThrottleClock clock = ThrottleClock.system();
    private InetAddress bindAddress = InetAddress.getLoopbackAddress();
    private int port;
    private S3Profile profile;
    private long seed = 1;

    private Builder(InetSocketAddress upstream) {
      this.upstream = Objects.requireNonNull(upstream);
    }

    /** The initial limit for all connections together; default {@link #UNLIMITED}. */
    public Builder aggregateResponseRate(long bytesPerSecond) {
      this.aggregateRate = bytesPerSecond;
      return this;
    }

    /** The initial limit for each connection; default {@link #UNLIMITED}. */
    public Builder perConnectionResponseRate(long bytesPerSecond) {
      this.perConnectionRate = Math.max(0, bytesPerSecond);
      return this;
    }

    /** The clock of the bandwidth limits; tests inject a fake one. Default {@link ThrottleClock#system()}. */
    public Builder throttleClock(ThrottleClock clock) {
      this.clock = Objects.requireNonNull(clock);
      return this;
    }

    /**
     * The address to listen on; default loopback. An emulated fleet listens on its bridge's address so that its
     * network namespaces reach the proxy, and tells its nodes apart by their addresses.
     */
    public Builder bindAddress(InetAddress address) {
      this.bindAddress = Objects.requireNonNull(address);
      return this;
    }

    /** The port to listen on; default 0, a free one. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /**
     * Emulates S3 as {@code profile} says: a drawn rate and first-byte latency per GET response, and its caps
     * (unless {@link #aggregateResponseRate} or {@link #perConnectionResponseRate} set their own).
     */
    public Builder profile(S3Profile profile) {
      this.profile = Objects.requireNonNull(profile);
      return this;
    }

    /** Seed of the profile's draws; default 1. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Starts listening on a free loopback port (or as {@link #bindAddress} and {@link #port} say). */
    public FaultProxy start() throws IOException {
      return new FaultProxy(this);
    }
  }
}
