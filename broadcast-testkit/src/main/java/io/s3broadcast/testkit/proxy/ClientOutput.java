package io.s3broadcast.testkit.proxy;

import java.io.Flushable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;

/**
 * The response direction of one connection: every byte to the client passes the per-connection, the
 * per-request (drawn from the {@link S3Profile}), the port's and the proxy-wide token buckets, in chunks small enough to keep the rate smooth, and is counted.
 * Buffered output is flushed before any wait. Used by one thread at a time.
 */
final class ClientOutput implements ByteSink, Flushable {
  private final OutputStream out;
  private final TokenBucket connectionBucket;
  private final TokenBucket portBucket;
  private final TokenBucket aggregateBucket;
  private final Counters counters;
  private final java.util.concurrent.atomic.LongAdder sourceBytes;
  private TokenBucket requestBucket;

  /**
   * @param portBucket the limit of the port (an emulated node's download link), or null
   * @param sourceBytes where this connection's bytes are counted per source
   */
  ClientOutput(OutputStream out, TokenBucket connectionBucket, TokenBucket portBucket, TokenBucket aggregateBucket,
      Counters counters, java.util.concurrent.atomic.LongAdder sourceBytes) {
    this.out = out;
    this.connectionBucket = connectionBucket;
    this.portBucket = portBucket;
    this.aggregateBucket = aggregateBucket;
    this.counters = counters;
    this.sourceBytes = sourceBytes;
  }

  /** The limit of the response now being sent (drawn from the profile), or null for none. */
  void requestBucket(TokenBucket bucket) {
    this.requestBucket = bucket;
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    while (length > 0) {
      int n = Math.min(length, Math.min(connectionBucket.chunkSize(), aggregateBucket.chunkSize()));
      TokenBucket request = requestBucket;
      if (request != null) {
        n = Math.min(n, request.chunkSize());
      }
      if (portBucket != null) {
        n = Math.min(n, portBucket.chunkSize());
      }
      throttle(n, request);
      // Counted before the write: a client that has read the bytes must find them counted.
      counters.bytesToClient.add(n);
      sourceBytes.add(n);
      try {
        out.write(bytes, offset, n);
      } catch (IOException e) {
        counters.bytesToClient.add(-n);
        sourceBytes.add(-n);
        throw e;
      }
      offset += n;
      length -= n;
    }
  }

  private void throttle(int n, TokenBucket request) throws IOException {
    try {
      long waited = connectionBucket.take(n, this) + aggregateBucket.take(n, this);
      if (request != null) {
        waited += request.take(n, this);
      }
      if (portBucket != null) {
        waited += portBucket.take(n, this);
      }
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
