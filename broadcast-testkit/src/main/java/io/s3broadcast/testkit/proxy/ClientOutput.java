package io.s3broadcast.testkit.proxy;

import java.io.Flushable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;

/**
 * The response direction of one connection: every byte to the client passes the per-connection and
 * the proxy-wide token buckets, in chunks small enough to keep the rate smooth, and is counted.
 * Buffered output is flushed before any wait. Used by one thread at a time.
 */
final class ClientOutput implements ByteSink, Flushable {
  private final OutputStream out;
  private final TokenBucket connectionBucket;
  private final TokenBucket aggregateBucket;
  private final Counters counters;

  ClientOutput(OutputStream out, TokenBucket connectionBucket, TokenBucket aggregateBucket, Counters counters) {
    this.out = out;
    this.connectionBucket = connectionBucket;
    this.aggregateBucket = aggregateBucket;
    this.counters = counters;
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    while (length > 0) {
      int n = Math.min(length, Math.min(connectionBucket.chunkSize(), aggregateBucket.chunkSize()));
      throttle(n);
      out.write(bytes, offset, n);
      counters.bytesToClient.add(n);
      offset += n;
      length -= n;
    }
  }

  private void throttle(int n) throws IOException {
    try {
      long waited = connectionBucket.take(n, this) + aggregateBucket.take(n, this);
      if (waited > 0) {
        counters.throttleNanos.add(waited);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while throttled");
    }
  }

  @Override
  public void flush() throws IOException {
    out.flush();
  }
}
