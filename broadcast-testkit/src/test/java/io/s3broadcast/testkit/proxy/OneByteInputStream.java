package io.s3broadcast.testkit.proxy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Hands out its bytes one per read, to test parsers against the worst fragmentation. */
final class OneByteInputStream extends InputStream {
  private final ByteArrayInputStream in;

  OneByteInputStream(byte[] bytes) {
    this.in = new ByteArrayInputStream(bytes);
  }

  static HttpInput input(String text) {
    return new HttpInput(new OneByteInputStream(text.getBytes(StandardCharsets.ISO_8859_1)), 16, () -> {});
  }

  @Override
  public int read() {
    return in.read();
  }

  @Override
  public int read(byte[] b, int off, int len) {
    return len == 0 ? 0 : in.read(b, off, 1);
  }
}
