package io.s3broadcast.testkit.proxy;

import java.io.EOFException;
import java.io.Flushable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * A buffered reader of one direction of an HTTP/1.1 connection: message heads, chunk-size lines and
 * body bytes. Holds one fixed buffer, so memory per connection is bounded whatever the body size.
 *
 * <p>Before every read that may block, the paired output is flushed, so that nothing the peer is
 * waiting for sits in a buffer while the proxy waits for the peer.
 */
final class HttpInput {
  private final InputStream in;
  private final Flushable beforeBlocking;
  private final byte[] buffer;
  private int pos;
  private int limit;

  HttpInput(InputStream in, int bufferSize, Flushable beforeBlocking) {
    this.in = in;
    this.beforeBlocking = beforeBlocking;
    this.buffer = new byte[bufferSize];
  }

  /** Makes at least one byte available; false at end of stream. */
  private boolean fill() throws IOException {
    if (pos < limit) {
      return true;
    }
    beforeBlocking.flush();
    int n = in.read(buffer, 0, buffer.length);
    if (n < 0) {
      return false;
    }
    pos = 0;
    limit = n;
    return true;
  }

  /**
   * Reads one message head: the start line and header lines up to and including the empty line.
   * Empty lines before the start line are skipped. A bare LF is accepted as a line end.
   *
   * @return the raw head bytes, or null if the stream ended cleanly before the first byte
   * @throws HttpProtocolException if the head exceeds {@code maxSize} bytes
   * @throws EOFException if the stream ends inside a head
   */
  byte[] readHead(int maxSize) throws IOException {
    byte[] head = null;
    int length = 0;
    int state = 0; // 0: inside a line, 1: just after LF, 2: after LF then CR
    while (true) {
      if (!fill()) {
        if (head == null) {
          return null;
        }
        throw new EOFException("stream ended inside an HTTP head after " + length + " bytes");
      }
      if (head == null) {
        while (pos < limit && (buffer[pos] == '\r' || buffer[pos] == '\n')) {
          pos++;
        }
        if (pos == limit) {
          continue;
        }
        head = new byte[Math.min(1024, maxSize)];
      }
      int end = -1;
      for (int i = pos; i < limit; i++) {
        byte b = buffer[i];
        if (b == '\n') {
          if (state != 0) {
            end = i + 1;
            break;
          }
          state = 1;
        } else if (b == '\r') {
          state = state == 1 ? 2 : 0;
        } else {
          state = 0;
        }
      }
      int take = (end < 0 ? limit : end) - pos;
      if (length + take > maxSize) {
        throw new HttpProtocolException("HTTP head longer than " + maxSize + " bytes");
      }
      if (length + take > head.length) {
        head = Arrays.copyOf(head, Math.min(maxSize, Math.max(length + take, head.length * 2)));
      }
      System.arraycopy(buffer, pos, head, length, take);
      length += take;
      pos += take;
      if (end >= 0) {
        return Arrays.copyOf(head, length);
      }
    }
  }

  /**
   * Reads one line including its terminator (LF or CRLF).
   *
   * @throws EOFException if the stream ends before the line does
   */
  byte[] readLine(int maxSize) throws IOException {
    byte[] line = new byte[64];
    int length = 0;
    while (true) {
      if (!fill()) {
        throw new EOFException("stream ended inside a line");
      }
      int end = -1;
      for (int i = pos; i < limit; i++) {
        if (buffer[i] == '\n') {
          end = i + 1;
          break;
        }
      }
      int take = (end < 0 ? limit : end) - pos;
      if (length + take > maxSize) {
        throw new HttpProtocolException("line longer than " + maxSize + " bytes");
      }
      if (length + take > line.length) {
        line = Arrays.copyOf(line, Math.max(length + take, line.length * 2));
      }
      System.arraycopy(buffer, pos, line, length, take);
      length += take;
      pos += take;
      if (end >= 0) {
        return Arrays.copyOf(line, length);
      }
    }
  }

  /**
   * Passes up to {@code max} bytes to {@code sink}, blocking only if none is buffered.
   *
   * @return the number of bytes passed, or -1 at end of stream
   */
  int transferTo(ByteSink sink, long max) throws IOException {
    if (max <= 0) {
      return 0;
    }
    if (!fill()) {
      return -1;
    }
    int n = (int) Math.min(limit - pos, max);
    int start = pos;
    pos += n;
    sink.write(buffer, start, n);
    return n;
  }

  /** Bytes read from the stream but not yet consumed. */
  int buffered() {
    return limit - pos;
  }
}
