package io.s3broadcast.testkit.proxy;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.Objects;
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
 */
public final class FaultProxy implements Closeable {
  /** A bandwidth limit meaning no limit. */
  public static final long UNLIMITED = 0;

  private static final Logger log = LoggerFactory.getLogger(FaultProxy.class);

  private final InetSocketAddress upstream;
  private final ThrottleClock clock;
  private final ServerSocket server;
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
    this.aggregate = new TokenBucket(builder.aggregateRate, clock);
    this.perConnectionRate = builder.perConnectionRate;
    this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    int port = server.getLocalPort();
    AtomicLong threadIds = new AtomicLong();
    ThreadFactory factory =
        task -> {
          Thread t = new Thread(task, "fault-proxy-" + port + "-" + threadIds.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    this.threads = Executors.newCachedThreadPool(factory);
    threads.execute(this::acceptLoop);
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
    return URI.create("http://" + address().getAddress().getHostAddress() + ":" + address().getPort());
  }

  /** The listening address. */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  /** Where requests are forwarded. */
  public InetSocketAddress upstream() {
    return upstream;
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

  private void acceptLoop() {
    Thread.currentThread().setName("fault-proxy-" + server.getLocalPort() + "-accept");
    while (!closed) {
      Socket socket;
      try {
        socket = server.accept();
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
        ProxyConnection connection =
            new ProxyConnection(this, connectionIds.incrementAndGet(), socket, bucket);
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

  /** Builds and starts a {@link FaultProxy}. */
  public static final class Builder {
    private final InetSocketAddress upstream;
    private long aggregateRate = UNLIMITED;
    private long perConnectionRate = UNLIMITED;
    private ThrottleClock clock = ThrottleClock.system();

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

    /** Starts listening on a free loopback port. */
    public FaultProxy start() throws IOException {
      return new FaultProxy(this);
    }
  }
}
