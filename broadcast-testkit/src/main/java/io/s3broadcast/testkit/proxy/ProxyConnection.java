package io.s3broadcast.testkit.proxy;

import java.io.BufferedOutputStream;
import java.io.Flushable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection and its own upstream connection, served by two threads: the request
 * thread reads request heads, asks the rules, and forwards requests (or answers them itself with
 * a {@link FaultKind#STATUS} fault); the response thread forwards responses, applying body faults
 * and the bandwidth limits. A queue of pending exchanges pairs each response with its request.
 *
 * <p>Memory is bounded: one read buffer and one small write buffer per direction.
 */
final class ProxyConnection {
  private static final Logger log = LoggerFactory.getLogger(ProxyConnection.class);

  static final int READ_BUFFER = 64 * 1024;
  static final int WRITE_BUFFER = 8 * 1024;
  static final int MAX_HEAD = 64 * 1024;
  private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
  private static final int DRAIN_TIMEOUT_MILLIS = 2_000;
  private static final long DRAIN_LIMIT = 64L * 1024 * 1024;

  private final FaultProxy proxy;
  private final long id;
  private final Socket client;
  private final TokenBucket bucket;
  private final ClientOutput clientOut;

  private final Object lock = new Object();
  // Guarded by lock.
  private final ArrayDeque<Exchange> pending = new ArrayDeque<>();
  private Socket upstream;
  private boolean clientDone;
  private boolean closed;

  /** A request on its way; {@code rule} is null when no rule claimed it. */
  private record Exchange(RequestHead head, Rule rule) {}

  /** Thrown to unwind after the proxy cut the connection on purpose. */
  private static final class ConnectionCut extends IOException {
    ConnectionCut(FaultKind kind) {
      super("connection cut by fault " + kind);
    }
  }

  /** Writing to upstream failed; the response thread still owns the connection's end. */
  private static final class UpstreamWriteFailed extends IOException {
    UpstreamWriteFailed(IOException cause) {
      super("writing to upstream failed", cause);
    }
  }

  private final String source;

  ProxyConnection(FaultProxy proxy, long id, Socket client, TokenBucket bucket, String source, TokenBucket link)
      throws IOException {
    this.proxy = proxy;
    this.id = id;
    this.client = client;
    this.bucket = bucket;
    this.source = source;
    this.clientOut =
        new ClientOutput(
            new BufferedOutputStream(client.getOutputStream(), WRITE_BUFFER),
            bucket,
            link,
            proxy.aggregateBucket(),
            proxy.counters(),
            proxy.counters().source(source));
  }

  TokenBucket bucket() {
    return bucket;
  }

  /** Runs the request side, after opening the upstream connection and starting the response side. */
  void run() {
    Thread.currentThread().setName("fault-proxy-" + id + "-requests");
    boolean handedOff = false;
    try {
      Socket up = new Socket();
      synchronized (lock) {
        if (closed) {
          return;
        }
        upstream = up;
      }
      up.setTcpNoDelay(true);
      up.connect(proxy.upstream(), CONNECT_TIMEOUT_MILLIS);
      UpstreamOutput upstreamOut = new UpstreamOutput(up.getOutputStream());
      proxy.execute(this::runResponses);
      forwardRequests(upstreamOut);
      handedOff = true;
    } catch (UpstreamWriteFailed e) {
      handedOff = true; // the response thread reads what upstream says, then closes
      log.debug("connection {}: {}", id, e.getCause().toString());
      shutdownClientInput();
    } catch (ConnectionCut e) {
      // closed on purpose
    } catch (IOException | RuntimeException e) {
      logEnd(e);
    } finally {
      if (!handedOff) {
        close();
      }
    }
  }

  private void forwardRequests(UpstreamOutput upstreamOut) throws IOException {
    HttpInput in = new HttpInput(client.getInputStream(), READ_BUFFER, upstreamOut);
    long number = 0;
    while (true) {
      byte[] raw = in.readHead(MAX_HEAD);
      if (raw == null) {
        upstreamOut.flush();
        boolean closeNow;
        synchronized (lock) {
          clientDone = true;
          closeNow = pending.isEmpty();
        }
        if (closeNow) {
          close();
        }
        return;
      }
      RequestHead head = HttpHeads.parseRequest(raw);
      number++;
      proxy.counters().requests.increment();
      BodyFraming framing = BodyFraming.forRequest(head);
      Rule rule = proxy.claim(head);
      if (rule != null && rule.fault().kind() == FaultKind.STATUS) {
        if (!answerWithStatus(in, head, framing, rule, number)) {
          return;
        }
        continue;
      }
      synchronized (lock) {
        if (closed) {
          return;
        }
        pending.add(new Exchange(head, rule));
      }
      upstreamOut.write(raw);
      BodyCopier.copy(in, framing, upstreamOut);
      upstreamOut.flush();
    }
  }

  /**
   * Answers a request with the proxy's own error response, in order after any pending responses.
   *
   * @return whether the connection stays open
   */
  private boolean answerWithStatus(HttpInput in, RequestHead head, BodyFraming framing, Rule rule, long number)
      throws IOException {
    awaitNoPending();
    boolean hasBody = framing.kind() != BodyFraming.Kind.NONE;
    if (hasBody && head.expectsContinue()) {
      // The client waits for "100 Continue" before sending the body: answer, then close.
      writeStatus(head, rule, number, true);
      drainAndClose();
      return false;
    }
    BodyCopier.copy(in, framing, ByteSink.DISCARD);
    boolean close = head.closesConnection();
    writeStatus(head, rule, number, close);
    if (close) {
      finish();
      return false;
    }
    return true;
  }

  private void writeStatus(RequestHead head, Rule rule, long number, boolean close) throws IOException {
    byte[] response = ErrorResponses.build(rule.fault(), head, close, (id << 24) + number);
    proxy.recordFault(rule);
    clientOut.write(response);
    clientOut.flush();
  }

  private void awaitNoPending() throws IOException {
    synchronized (lock) {
      while (!pending.isEmpty() && !closed) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException();
        }
      }
      if (closed) {
        throw new SocketException("connection closed");
      }
    }
  }

  private void runResponses() {
    Thread.currentThread().setName("fault-proxy-" + id + "-responses");
    try {
      forwardResponses();
    } catch (ConnectionCut e) {
      // closed on purpose
    } catch (IOException | RuntimeException e) {
      logEnd(e);
    } finally {
      close();
    }
  }

  private void forwardResponses() throws IOException {
    Socket up;
    synchronized (lock) {
      up = upstream;
    }
    HttpInput in = new HttpInput(up.getInputStream(), READ_BUFFER, clientOut);
    while (true) {
      byte[] raw = in.readHead(MAX_HEAD);
      Exchange exchange;
      synchronized (lock) {
        exchange = pending.peek();
      }
      if (raw == null) {
        if (exchange != null) {
          log.debug("connection {}: upstream closed before answering {}", id, exchange.head());
        }
        finish();
        return;
      }
      if (exchange == null) {
        throw new HttpProtocolException("response from upstream with no request pending");
      }
      ResponseHead head = HttpHeads.parseResponse(raw);
      if (head.status() == 101) {
        throw new HttpProtocolException("protocol upgrades are not supported");
      }
      Rule rule = exchange.rule();
      boolean headFault = rule != null && rule.fault().afterHeadBytes() >= 0;
      boolean profiled = !head.isInterim() && proxy.profile() != null && exchange.head().method().equals("GET")
          && head.status() >= 200 && head.status() < 300;
      long[] draw = profiled ? proxy.drawRequest() : null;
      if (profiled) {
        firstByteWait(draw[1]);
        clientOut.requestBucket(draw[0] > 0 ? emptyBucket(draw[0]) : null);
      }
      if (headFault) {
        int before = Math.min(rule.fault().afterHeadBytes(), raw.length - 1);
        clientOut.write(raw, 0, before);
        strike(rule);
        clientOut.write(raw, before, raw.length - before);
      } else {
        clientOut.write(raw);
      }
      if (head.isInterim()) {
        clientOut.flush();
        continue;
      }
      BodyFraming framing = BodyFraming.forResponse(exchange.head().method(), head);
      long bodyStart = proxy.clock().nanoTime();
      ByteSink body = rule == null || headFault ? clientOut : new FaultingBody(rule);
      CountingSink counted = new CountingSink(body);
      try {
        BodyCopier.copy(in, framing, counted);
        // Recorded before the flush: a client that has read the last byte must find the request recorded.
        // The throttling is done in write, so the body's time is complete here.
        if (profiled) {
          proxy.recordServed(new ServedRequest(source, draw[0], draw[1], counted.bytes,
              proxy.clock().nanoTime() - bodyStart));
        }
        clientOut.flush();
      } finally {
        clientOut.requestBucket(null);
      }
      boolean closeNow;
      synchronized (lock) {
        pending.poll();
        lock.notifyAll();
        closeNow = clientDone && pending.isEmpty();
      }
      if (closeNow || framing.kind() == BodyFraming.Kind.UNTIL_CLOSE) {
        finish();
        return;
      }
    }
  }

  /** A bucket at the drawn rate with no initial burst, so that a short body too goes at its drawn rate. */
  private TokenBucket emptyBucket(long rate) {
    TokenBucket b = new TokenBucket(rate, proxy.clock());
    b.takeNow((long) b.capacity());
    return b;
  }

  private void firstByteWait(long nanos) throws IOException {
    if (nanos <= 0) {
      return;
    }
    try {
      proxy.clock().sleepNanos(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted in the first-byte latency");
    }
  }

  /** Counts the body bytes that pass. */
  private static final class CountingSink implements ByteSink {
    private final ByteSink next;
    long bytes;

    CountingSink(ByteSink next) {
      this.next = next;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      next.write(b, off, len);
      bytes += len;
    }
  }

  /** Forwards a response body and strikes once the fault's offset is passed. */
  private final class FaultingBody implements ByteSink {
    private final Rule rule;
    private final long offset;
    private long written;
    private boolean struck;

    FaultingBody(Rule rule) {
      this.rule = rule;
      this.offset = rule.fault().afterBodyBytes();
    }

    @Override
    public void write(byte[] bytes, int off, int length) throws IOException {
      if (!struck && written + length > offset) {
        int before = (int) (offset - written);
        clientOut.write(bytes, off, before);
        written += before;
        off += before;
        length -= before;
        struck = true;
        strike(rule);
      }
      clientOut.write(bytes, off, length);
      written += length;
    }
  }

  private void strike(Rule rule) throws IOException {
    Fault fault = rule.fault();
    clientOut.flush();
    switch (fault.kind()) {
      case RESET:
        proxy.recordFault(rule);
        reset();
        throw new ConnectionCut(FaultKind.RESET);
      case TRUNCATE:
        proxy.recordFault(rule);
        finish();
        throw new ConnectionCut(FaultKind.TRUNCATE);
      case STALL:
        CountDownLatch release = rule.releaseLatch();
        proxy.recordFault(rule);
        Duration duration = fault.stallDuration().orElse(null);
        try {
          if (duration == null) {
            release.await();
          } else {
            release.await(duration.toNanos(), TimeUnit.NANOSECONDS);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while stalled");
        }
        return;
      default:
        throw new IllegalStateException("not a body fault: " + fault);
    }
  }

  /** Ends the connection with a reset (RST) towards the client. */
  private void reset() {
    try {
      client.setSoLinger(true, 0);
    } catch (IOException e) {
      log.debug("connection {}: cannot set SO_LINGER", id, e);
    }
    close();
  }

  /** Ends the connection cleanly: flushes, sends FIN to the client, closes both sockets. */
  private void finish() {
    try {
      clientOut.flush();
      client.shutdownOutput();
    } catch (IOException e) {
      log.debug("connection {}: {}", id, e.toString());
    }
    close();
  }

  /** After answering and announcing close: FIN, then read and drop what the client still sends. */
  private void drainAndClose() {
    try {
      client.shutdownOutput();
      client.setSoTimeout(DRAIN_TIMEOUT_MILLIS);
      InputStream in = client.getInputStream();
      byte[] sink = new byte[8192];
      long drained = 0;
      int n;
      while (drained < DRAIN_LIMIT && (n = in.read(sink)) >= 0) {
        drained += n;
      }
    } catch (IOException e) {
      log.debug("connection {}: drain ended: {}", id, e.toString());
    }
    close();
  }

  private void shutdownClientInput() {
    try {
      client.shutdownInput();
    } catch (IOException e) {
      log.debug("connection {}: {}", id, e.toString());
    }
  }

  /** Closes both sockets; idempotent, from any thread. */
  void close() {
    Socket up;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      up = upstream;
      lock.notifyAll();
    }
    closeQuietly(client);
    if (up != null) {
      closeQuietly(up);
    }
    proxy.closed(this);
  }

  private void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      log.debug("connection {}: close: {}", id, e.toString());
    }
  }

  private void logEnd(Exception e) {
    boolean wasClosed;
    synchronized (lock) {
      wasClosed = closed;
    }
    if (wasClosed || e instanceof IOException) {
      log.debug("connection {} ended: {}", id, e.toString());
    } else {
      log.warn("connection {} failed", id, e);
    }
  }

  /** The request direction to upstream: buffered, counted, failures marked as upstream's. */
  private final class UpstreamOutput implements ByteSink, Flushable {
    private final OutputStream out;

    UpstreamOutput(OutputStream out) {
      this.out = new BufferedOutputStream(out, WRITE_BUFFER);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      // Counted before the write (large writes bypass the buffer): an upstream that has read the bytes, and so
      // a client that has its answer, must find them counted.
      proxy.counters().bytesToUpstream.add(length);
      try {
        out.write(bytes, offset, length);
      } catch (IOException e) {
        proxy.counters().bytesToUpstream.add(-length);
        throw new UpstreamWriteFailed(e);
      }
    }

    @Override
    public void flush() throws IOException {
      try {
        out.flush();
      } catch (IOException e) {
        throw new UpstreamWriteFailed(e);
      }
    }
  }
}
