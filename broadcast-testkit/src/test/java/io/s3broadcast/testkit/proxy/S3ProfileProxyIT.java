package io.s3broadcast.testkit.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/** The proxy under an {@link S3Profile}, on real sockets and fake time: every GET draws its own rate and latency. */
@Timeout(120)
@DisabledIfSystemProperty(named = "s3broadcast.test.backend", matches = "localstack")
class S3ProfileProxyIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static TestUpstream upstream;
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();

  @BeforeAll
  static void startUpstream() throws IOException {
    upstream = TestUpstream.start();
  }

  @AfterAll
  static void stopUpstream() {
    upstream.close();
  }

  private byte[] get(URI endpoint, String target) throws Exception {
    HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(endpoint.resolve(target)).timeout(WAIT).build(),
        BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  @Test
  void everyGetDrawsItsOwnRateAndLatency() throws Exception {
    FakeThrottleClock clock = new FakeThrottleClock();
    S3Profile profile = S3Profile.parse("empirical:1MB,4MB;latency=50ms");
    try (FaultProxy proxy = FaultProxy.builder(upstream.address()).throttleClock(clock).profile(profile).seed(3).start()) {
      int size = 2_000_000;
      for (int i = 0; i < 12; i++) {
        assertThat(get(proxy.endpoint(), "/bytes/" + size)).isEqualTo(TestUpstream.bytes(0, size));
      }
      List<ServedRequest> served = proxy.servedRequests();
      assertThat(served).hasSize(12);
      assertThat(served).extracting(ServedRequest::drawnRate).contains(1_000_000L, 4_000_000L)
          .containsOnly(1_000_000L, 4_000_000L);
      for (ServedRequest r : served) {
        assertThat(r.firstByteNanos()).isEqualTo(50_000_000L);
        assertThat(r.bodyBytes()).isEqualTo(size);
        double expected = (double) size / r.drawnRate(); // a drawn rate has no initial burst
        assertThat(r.bodyNanos() / 1e9).as("%s", r).isCloseTo(expected, within(0.05));
        assertThat(r.source()).isEqualTo("127.0.0.1");
      }
      assertThat(proxy.stats().bytesToClient("127.0.0.1")).isEqualTo(proxy.stats().bytesToClient());
    }
  }

  @Test
  void headsAndErrorsDrawNothing() throws Exception {
    FakeThrottleClock clock = new FakeThrottleClock();
    try (FaultProxy proxy = FaultProxy.builder(upstream.address()).throttleClock(clock)
        .profile(S3Profile.parse("fixed:1MB;latency=1s")).start()) {
      HttpResponse<Void> head = client.send(HttpRequest.newBuilder(proxy.endpoint().resolve("/bytes/100"))
          .method("HEAD", HttpRequest.BodyPublishers.noBody()).timeout(WAIT).build(), BodyHandlers.discarding());
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(proxy.servedRequests()).isEmpty();
      assertThat(clock.slept()).isZero();
    }
  }

  @Test
  void aLabelledPortCountsItsBytesAndChargesItsLink() throws Exception {
    FakeThrottleClock clock = new FakeThrottleClock();
    Throttle link = Throttle.of(500_000, clock);
    try (FaultProxy proxy = FaultProxy.builder(upstream.address()).throttleClock(clock)
        .profile(S3Profile.parse("fixed:10MB;latency=0")).start()) {
      URI node1 = proxy.openPort("node-1", link);
      URI node2 = proxy.openPort("node-2", null);
      long before = clock.nanoTime();
      get(node1, "/bytes/1000000");
      double node1Seconds = (clock.nanoTime() - before) / 1e9;
      get(node2, "/bytes/300000");
      assertThat(node1Seconds).isCloseTo((1_000_000 - 50_000) / 500_000.0, within(0.05)); // the link starts full
      ProxyStats stats = proxy.stats();
      assertThat(stats.bytesToClient("node-1")).isGreaterThan(1_000_000L).isLessThan(1_001_000L);
      assertThat(stats.bytesToClient("node-2")).isGreaterThan(300_000L).isLessThan(301_000L);
      assertThat(stats.bytesToClientBySource()).containsOnlyKeys("node-1", "node-2");
      assertThat(proxy.servedRequests()).extracting(ServedRequest::source).containsExactly("node-1", "node-2");
    }
  }

  @Test
  void theProfilesCapsBecomeTheProxysLimits() throws Exception {
    try (FaultProxy proxy = FaultProxy.builder(upstream.address())
        .profile(S3Profile.parse("paper;connection=20MB;aggregate=40MB")).start()) {
      assertThat(proxy.perConnectionResponseRate()).isEqualTo(20_000_000);
      assertThat(proxy.aggregateResponseRate()).isEqualTo(40_000_000);
    }
  }
}
