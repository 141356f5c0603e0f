package io.s3broadcast.testkit.proxy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tiny HTTP/1.1 origin for the proxy's tests, on the JDK's built-in server.
 *
 * <ul>
 *   <li>{@code GET|HEAD /bytes/<n>}: {@code n} bytes of {@link #byteAt} content, honouring a single
 *       {@code Range: bytes=a-b} or {@code bytes=a-}; {@code ?chunked} sends it chunked, {@code
 *       ?close} asks to close the connection afterwards.
 *   <li>{@code PUT|POST /echo}: reads the body and answers with its length and a checksum.
 *   <li>{@code GET /empty}: 204.
 * </ul>
 */
final class TestUpstream implements AutoCloseable {
  private static final int PATTERN_LENGTH = 1_048_573; // prime, so ranges do not line up with it
  private static final byte[] PATTERN = new byte[PATTERN_LENGTH];
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d*)");

  static {
    new Random(20240601L).nextBytes(PATTERN);
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final List<String> requests = new CopyOnWriteArrayList<>();

  private TestUpstream() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(executor);
    server.createContext("/bytes/", this::bytes);
    server.createContext("/echo", this::echo);
    server.createContext("/empty", this::empty);
    server.start();
  }

  static TestUpstream start() throws IOException {
    return new TestUpstream();
  }

  InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getAddress().getPort());
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Requests served, as {@code METHOD path}, in arrival order. */
  List<String> requests() {
    return List.copyOf(requests);
  }

  static byte byteAt(long position) {
    return PATTERN[(int) (position % PATTERN_LENGTH)];
  }

  static byte[] bytes(long position, int length) {
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = byteAt(position + i);
    }
    return out;
  }

  /** A checksum of {@code length} bytes of content from {@code position}, to compare big bodies. */
  static long checksum(long position, long length) {
    Checksum sum = new Checksum(position);
    byte[] chunk = new byte[64 * 1024];
    for (long done = 0; done < length; ) {
      int n = (int) Math.min(chunk.length, length - done);
      for (int i = 0; i < n; i++) {
        chunk[i] = byteAt(position + done + i);
      }
      sum.update(chunk, 0, n);
      done += n;
    }
    return sum.value();
  }

  /** A position-aware checksum of a byte stream (so reordering shows). */
  static final class Checksum {
    private long position;
    private long value;

    Checksum(long start) {
      position = start;
    }

    void update(byte[] b, int off, int len) {
      for (int i = 0; i < len; i++) {
        value = value * 31 + (b[off + i] & 0xff) + position++;
      }
    }

    long value() {
      return value;
    }
  }

  private void bytes(HttpExchange exchange) throws IOException {
    requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
    try (exchange) {
      long size = Long.parseLong(exchange.getRequestURI().getPath().substring("/bytes/".length()));
      String query = exchange.getRequestURI().getQuery();
      boolean chunked = query != null && query.contains("chunked");
      if (query != null && query.contains("close")) {
        exchange.getResponseHeaders().add("Connection", "close");
      }
      long start = 0;
      long end = size - 1;
      int status = 200;
      String range = exchange.getRequestHeaders().getFirst("Range");
      if (range != null) {
        Matcher m = RANGE.matcher(range);
        if (!m.matches()) {
          exchange.sendResponseHeaders(416, -1);
          return;
        }
        start = Long.parseLong(m.group(1));
        end = m.group(2).isEmpty() ? size - 1 : Math.min(size - 1, Long.parseLong(m.group(2)));
        status = 206;
        exchange.getResponseHeaders().add("Content-Range", "bytes " + start + "-" + end + "/" + size);
      }
      long length = end - start + 1;
      exchange.getResponseHeaders().add("Content-Type", "application/octet-stream");
      if (exchange.getRequestMethod().equals("HEAD")) {
        exchange.getResponseHeaders().add("Content-Length", Long.toString(length));
        exchange.sendResponseHeaders(status, -1);
        return;
      }
      exchange.sendResponseHeaders(status, chunked ? 0 : length);
      OutputStream out = exchange.getResponseBody();
      long position = start;
      long remaining = length;
      while (remaining > 0) {
        int offset = (int) (position % PATTERN_LENGTH);
        int n = (int) Math.min(remaining, Math.min(PATTERN_LENGTH - offset, 256 * 1024));
        out.write(PATTERN, offset, n);
        position += n;
        remaining -= n;
      }
    }
  }

  private void echo(HttpExchange exchange) throws IOException {
    requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
    try (exchange) {
      long length = 0;
      long sum = 0;
      byte[] buffer = new byte[64 * 1024];
      try (InputStream in = exchange.getRequestBody()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          for (int i = 0; i < n; i++) {
            sum = sum * 31 + (buffer[i] & 0xff);
          }
          length += n;
        }
      }
      byte[] body = (length + " " + sum).getBytes(StandardCharsets.US_ASCII);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
    }
  }

  private void empty(HttpExchange exchange) throws IOException {
    requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
    try (exchange) {
      exchange.sendResponseHeaders(204, -1);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
