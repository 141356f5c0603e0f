package io.s3broadcast.testkit.proxy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** A bare socket client, to see exactly what the proxy does on the wire (RST vs FIN, stalls). */
final class RawClient implements AutoCloseable {
  final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawClient(InetSocketAddress address) throws IOException {
    socket = new Socket(address.getAddress(), address.getPort());
    socket.setSoTimeout(30_000);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  void get(String target) throws IOException {
    send("GET " + target + " HTTP/1.1\r\nHost: test\r\n\r\n");
  }

  void send(String request) throws IOException {
    out.write(request.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  /** Reads a response head; returns it as text. */
  String readHead() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int state = 0;
    while (state < 4) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("end of stream in head: " + head);
      }
      head.write(b);
      state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  static long contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        return Long.parseLong(line.substring(15).trim());
      }
    }
    throw new IllegalArgumentException("no Content-Length in " + head);
  }

  /** Reads exactly n bytes. */
  byte[] readBytes(int n) throws IOException {
    byte[] b = in.readNBytes(n);
    if (b.length < n) {
      throw new EOFException("got " + b.length + " of " + n + " bytes");
    }
    return b;
  }

  /** Reads until end of stream (or an exception), counting bytes. */
  long readToEnd() throws IOException {
    long total = 0;
    byte[] buffer = new byte[8192];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      total += n;
    }
    return total;
  }

  int read(byte[] buffer) throws IOException {
    return in.read(buffer);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
