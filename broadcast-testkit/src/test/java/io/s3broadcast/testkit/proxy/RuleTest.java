package io.s3broadcast.testkit.proxy;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class RuleTest {

  private static RequestHead head(String method, String target, String... headers) throws Exception {
    StringBuilder s = new StringBuilder(method + " " + target + " HTTP/1.1\r\n");
    for (String h : headers) {
      s.append(h).append("\r\n");
    }
    return HttpHeads.parseRequest(s.append("\r\n").toString().getBytes(ISO_8859_1));
  }

  @Test
  void claimsTheNextNMatchingRequests() throws Exception {
    Rule rule = Rule.forGets().times(2).inject(Fault.slowDown());
    assertThat(rule.claim(head("PUT", "/b/k"))).isFalse();
    assertThat(rule.claim(head("GET", "/b/k"))).isTrue();
    assertThat(rule.claim(head("HEAD", "/b/k"))).isFalse();
    assertThat(rule.claim(head("GET", "/b/k"))).isTrue();
    assertThat(rule.claim(head("GET", "/b/k"))).isFalse();
    assertThat(rule.claimed()).isEqualTo(2);
    assertThat(rule.remaining()).isZero();
  }

  @Test
  void defaultIsOnceAndAlwaysIsUnlimited() throws Exception {
    Rule once = Rule.forRequests().inject(Fault.internalError());
    assertThat(once.claim(head("GET", "/"))).isTrue();
    assertThat(once.claim(head("GET", "/"))).isFalse();
    Rule always = Rule.forRequests().always().inject(Fault.internalError());
    for (int i = 0; i < 100; i++) {
      assertThat(always.claim(head("GET", "/"))).isTrue();
    }
    always.disable();
    assertThat(always.claim(head("GET", "/"))).isFalse();
  }

  @Test
  void matchesPathAndRange() throws Exception {
    RequestHead ranged = head("GET", "/bucket/big.bin?x=1", "Range: bytes=1048576-2097151");
    RequestHead whole = head("GET", "/bucket/big.bin");
    assertThat(Rule.forGets().path("/bucket/big.bin").always().inject(Fault.slowDown()).claim(ranged)).isTrue();
    assertThat(Rule.forGets().path("/bucket/big").always().inject(Fault.slowDown()).claim(ranged)).isFalse();
    assertThat(Rule.forGets().pathStartsWith("/bucket/").always().inject(Fault.slowDown()).claim(whole)).isTrue();
    assertThat(Rule.forGets().pathMatches(".*\\.bin").always().inject(Fault.slowDown()).claim(whole)).isTrue();
    Rule withRange = Rule.forGets().withRange().always().inject(Fault.resetAfter(0));
    assertThat(withRange.claim(whole)).isFalse();
    assertThat(withRange.claim(ranged)).isTrue();
    assertThat(Rule.forGets().withoutRange().always().inject(Fault.slowDown()).claim(ranged)).isFalse();
    assertThat(Rule.forGets().range("bytes=1048576-2097151").inject(Fault.slowDown()).claim(ranged)).isTrue();
    assertThat(Rule.forGets().range(r -> r.startsWith("bytes=0-")).inject(Fault.slowDown()).claim(ranged))
        .isFalse();
    assertThat(Rule.matching(h -> h.query().equals("x=1")).inject(Fault.slowDown()).claim(ranged)).isTrue();
  }

  @Test
  void probabilityIsReproducibleFromTheSeed() throws Exception {
    List<Boolean> first = draws(Rule.forGets().withProbability(0.3, 42).inject(Fault.slowDown()));
    List<Boolean> second = draws(Rule.forGets().withProbability(0.3, 42).inject(Fault.slowDown()));
    assertThat(first).isEqualTo(second);
    long hits = first.stream().filter(b -> b).count();
    assertThat(hits).isBetween(200L, 400L);
    assertThat(draws(Rule.forGets().withProbability(0, 1).inject(Fault.slowDown()))).doesNotContain(true);
    assertThat(draws(Rule.forGets().withProbability(0.5, 7).times(3).inject(Fault.slowDown())))
        .filteredOn(b -> b)
        .hasSize(3);
  }

  private static List<Boolean> draws(Rule rule) throws Exception {
    List<Boolean> out = new ArrayList<>();
    RequestHead get = head("GET", "/k");
    for (int i = 0; i < 1000; i++) {
      out.add(rule.claim(get));
    }
    assertThat(rule.matched()).isEqualTo(1000);
    return out;
  }

  @Test
  void awaitInjectedSeesInjectionsFromOtherThreads() throws Exception {
    Rule rule = Rule.forGets().inject(Fault.stallAfter(0));
    assertThat(rule.awaitInjected(1, Duration.ofMillis(1))).isFalse();
    Thread t = new Thread(rule::recordInjected);
    t.start();
    assertThat(rule.awaitInjected(1, Duration.ofSeconds(30))).isTrue();
    t.join();
  }

  @Test
  void releaseEndsCurrentStallsOnly() {
    Rule rule = Rule.forGets().inject(Fault.stallAfter(0));
    CountDownLatch current = rule.releaseLatch();
    rule.release();
    assertThat(current.getCount()).isZero();
    assertThat(rule.releaseLatch().getCount()).isOne();
  }

  @Test
  void faultsValidateTheirArguments() {
    assertThatThrownBy(() -> Fault.status(100, "X", "y")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Fault.resetAfter(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Fault.stallAfter(0, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Rule.forGets().times(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Rule.forGets().withProbability(1.5, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThat(Fault.slowDown().status()).isEqualTo(503);
    assertThat(Fault.truncateAfter(7).kind()).isEqualTo(FaultKind.TRUNCATE);
    assertThat(Fault.stallAfter(7).stallDuration()).isEmpty();
  }

  @Test
  void errorResponsesLookLikeS3() throws Exception {
    String response =
        new String(ErrorResponses.build(Fault.slowDown(), head("GET", "/b/a&b"), false, 1), ISO_8859_1);
    assertThat(response).startsWith("HTTP/1.1 503 Slow Down\r\n");
    assertThat(response).contains("<Code>SlowDown</Code>").contains("<Resource>/b/a&amp;b</Resource>");
    int body = response.indexOf("\r\n\r\n") + 4;
    assertThat(response).contains("Content-Length: " + (response.length() - body) + "\r\n");
    String head = new String(ErrorResponses.build(Fault.internalError(), head("HEAD", "/b/k"), true, 2), ISO_8859_1);
    assertThat(head).startsWith("HTTP/1.1 500 ").contains("Content-Length: 0\r\n").contains("Connection: close").endsWith("\r\n\r\n");
  }
}
