package io.s3broadcast.testkit.proxy;

import java.io.EOFException;
import java.io.IOException;

/** Streams one message body from an {@link HttpInput} to a {@link ByteSink}, bytes unchanged. */
final class BodyCopier {
  static final int MAX_LINE = 8 * 1024;

  private BodyCopier() {}

  static void copy(HttpInput in, BodyFraming framing, ByteSink out) throws IOException {
    switch (framing.kind()) {
      case NONE:
        return;
      case FIXED:
        copyFixed(in, framing.length(), out);
        return;
      case CHUNKED:
        copyChunked(in, out);
        return;
      case UNTIL_CLOSE:
        while (in.transferTo(out, Long.MAX_VALUE) >= 0) {
          // until end of stream
        }
        return;
      default:
        throw new IllegalStateException("unknown framing " + framing);
    }
  }

  private static void copyFixed(HttpInput in, long length, ByteSink out) throws IOException {
    long remaining = length;
    while (remaining > 0) {
      int n = in.transferTo(out, remaining);
      if (n < 0) {
        throw new EOFException("stream ended with " + remaining + " of " + length + " body bytes missing");
      }
      remaining -= n;
    }
  }

  private static void copyChunked(HttpInput in, ByteSink out) throws IOException {
    while (true) {
      byte[] sizeLine = in.readLine(MAX_LINE);
      out.write(sizeLine);
      long size = chunkSize(sizeLine);
      if (size == 0) {
        while (true) {
          byte[] trailer = in.readLine(MAX_LINE);
          out.write(trailer);
          if (isBlank(trailer)) {
            return;
          }
        }
      }
      copyFixed(in, size, out);
      byte[] end = in.readLine(MAX_LINE);
      if (!isBlank(end)) {
        throw new HttpProtocolException("chunk data not followed by CRLF");
      }
      out.write(end);
    }
  }

  /** Parses the hexadecimal size at the start of a chunk-size line, ignoring extensions. */
  static long chunkSize(byte[] line) throws HttpProtocolException {
    long size = 0;
    int digits = 0;
    for (byte b : line) {
      int d = Character.digit(b, 16);
      if (d < 0) {
        break;
      }
      if (++digits > 15) {
        throw new HttpProtocolException("chunk size too large");
      }
      size = size * 16 + d;
    }
    if (digits == 0) {
      throw new HttpProtocolException("bad chunk-size line");
    }
    return size;
  }

  private static boolean isBlank(byte[] line) {
    return line.length == 1 || (line.length == 2 && line[0] == '\r');
  }
}
