package io.s3broadcast.testkit.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/** The response limits composed, on fake time: per request, per port (a node's link), aggregate. */
class ClientOutputTest {
  private final FakeThrottleClock clock = new FakeThrottleClock();
  private final Counters counters = new Counters();

  private ClientOutput output(TokenBucket port, TokenBucket aggregate) {
    return new ClientOutput(new ByteArrayOutputStream(), new TokenBucket(0, clock), port, aggregate, counters,
        counters.source("node-1"));
  }

  private static double expectedSeconds(long bytes, long rate) {
    return (bytes - rate / 10.0) / rate; // the bucket starts with a tenth of a second's burst
  }

  @Test
  void aRequestBodyGoesAtItsDrawnRate() throws Exception {
    ClientOutput out = output(null, new TokenBucket(0, clock));
    long rate = 4_000_000;
    out.requestBucket(new TokenBucket(rate, clock));
    long start = clock.nanoTime();
    out.write(new byte[8_000_000]);
    double seconds = (clock.nanoTime() - start) / 1e9;
    assertThat(seconds).isBetween(expectedSeconds(8_000_000, rate) - 0.025, expectedSeconds(8_000_000, rate) + 0.01);
    assertThat(counters.snapshot().bytesToClient("node-1")).isEqualTo(8_000_000);
  }

  @Test
  void theSlowestLimitBinds() throws Exception {
    TokenBucket link = new TokenBucket(2_000_000, clock);
    ClientOutput out = output(link, new TokenBucket(50_000_000, clock));
    out.requestBucket(new TokenBucket(10_000_000, clock));
    long start = clock.nanoTime();
    out.write(new byte[4_000_000]);
    double seconds = (clock.nanoTime() - start) / 1e9;
    assertThat(seconds).isBetween(expectedSeconds(4_000_000, 2_000_000) - 0.025,
        expectedSeconds(4_000_000, 2_000_000) + 0.01);
  }

  @Test
  void connectionsOfOnePortShareItsLink() throws Exception {
    TokenBucket link = new TokenBucket(1_000_000, clock);
    TokenBucket aggregate = new TokenBucket(0, clock);
    ClientOutput a = output(link, aggregate);
    ClientOutput b = output(link, aggregate);
    long start = clock.nanoTime();
    for (int i = 0; i < 100; i++) { // interleaved, as two connections of one node would be
      a.write(new byte[10_000]);
      b.write(new byte[10_000]);
    }
    double seconds = (clock.nanoTime() - start) / 1e9;
    assertThat(seconds).isBetween(expectedSeconds(2_000_000, 1_000_000) - 0.02,
        expectedSeconds(2_000_000, 1_000_000) + 0.02);
    assertThat(counters.snapshot().bytesToClientBySource()).containsEntry("node-1", 2_000_000L);
  }

  @Test
  void withoutARequestLimitOnlyTheOthersApply() throws Exception {
    ClientOutput out = output(null, new TokenBucket(0, clock));
    out.requestBucket(null);
    out.write(new byte[1 << 20]);
    assertThat(clock.slept()).isZero();
  }

  @Test
  void aSharedThrottleChargesLikeTheBucket() throws Exception {
    Throttle t = Throttle.of(1_000_000, clock);
    long waited = 0;
    for (int i = 0; i < 20; i++) {
      waited += t.charge(100_000);
    }
    assertThat(waited / 1e9).isBetween(expectedSeconds(2_000_000, 1_000_000) - 0.11,
        expectedSeconds(2_000_000, 1_000_000) + 0.01);
  }
}
