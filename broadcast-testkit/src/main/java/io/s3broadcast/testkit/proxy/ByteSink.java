package io.s3broadcast.testkit.proxy;

import java.io.IOException;

/** Where forwarded bytes go. Implementations must not keep a reference to {@code bytes} after returning. */
@FunctionalInterface
interface ByteSink {
  ByteSink DISCARD = (bytes, offset, length) -> {};

  void write(byte[] bytes, int offset, int length) throws IOException;

  default void write(byte[] bytes) throws IOException {
    write(bytes, 0, bytes.length);
  }
}
