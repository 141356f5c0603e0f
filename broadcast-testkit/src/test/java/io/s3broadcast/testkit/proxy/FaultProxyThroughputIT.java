package io.s3broadcast.testkit.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Measures throughput of a 256 MiB GET through the proxy against the same GET direct. A
 * measurement, not a check, so it only runs when asked: {@code -Dfaultproxy.throughput=true}.
 */
@EnabledIfSystemProperty(named = "faultproxy.throughput", matches = "true")
@DisabledIfSystemProperty(named = "s3broadcast.test.backend", matches = "localstack")
class FaultProxyThroughputIT {
  private static final long SIZE = 256L << 20;
  private static final int ROUNDS = 5;

  @Test
  void throughputThroughTheProxyIsCloseToDirect() throws Exception {
    try (TestUpstream upstream = TestUpstream.start();
        FaultProxy plain = FaultProxy.start(upstream.address());
        FaultProxy limited =
            FaultProxy.builder(upstream.address()).perConnectionResponseRate(100L << 30).start()) {
      double direct = 0;
      double proxied = 0;
      double throttled = 0;
      for (int round = 0; round < ROUNDS; round++) {
        direct = Math.max(direct, mibPerSecond(upstream.address()));
        proxied = Math.max(proxied, mibPerSecond(plain.address()));
        throttled = Math.max(throttled, mibPerSecond(limited.address()));
      }
      System.out.printf(
          "256 MiB GET, best of %d: direct %.0f MiB/s, proxy %.0f MiB/s (%.2f of direct),"
              + " proxy with a 100 GiB/s bucket %.0f MiB/s (%.2f)%n",
          ROUNDS, direct, proxied, proxied / direct, throttled, throttled / direct);
      assertThat(proxied / direct).isGreaterThan(0.3);
    }
  }

  private static double mibPerSecond(InetSocketAddress address) throws Exception {
    try (RawClient client = new RawClient(address)) {
      long start = System.nanoTime();
      client.get("/bytes/" + SIZE);
      long length = RawClient.contentLength(client.readHead());
      byte[] buffer = new byte[256 * 1024];
      long received = 0;
      while (received < length) {
        int n = client.read(buffer);
        if (n < 0) {
          break;
        }
        received += n;
      }
      assertThat(received).isEqualTo(SIZE);
      return SIZE / 1048576.0 / ((System.nanoTime() - start) / 1e9);
    }
  }
}
