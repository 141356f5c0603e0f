package io.s3broadcast.testkit.proxy;

/**
 * One response the proxy served under an {@link S3Profile}: what it drew and what the client got. Used to check
 * that the emulated S3 behaves as configured (a histogram of {@link #drawnRate} against {@link #achievedRate}).
 *
 * @param source the port label or client address it was counted under
 * @param drawnRate the rate drawn for the body, bytes per second, or 0 when unlimited
 * @param firstByteNanos the first-byte latency drawn
 * @param bodyBytes body bytes sent
 * @param bodyNanos time from the first to the last body byte, on the proxy's clock
 */
public record ServedRequest(String source, long drawnRate, long firstByteNanos, long bodyBytes, long bodyNanos) {
  /** Body bytes per second as sent, or 0 for an empty or instant body. */
  public double achievedRate() {
    return bodyNanos <= 0 ? 0 : bodyBytes * 1e9 / bodyNanos;
  }
}
