package io.s3broadcast.testkit.proxy;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HttpHeadsTest {

  private static RequestHead request(String text) throws Exception {
    return HttpHeads.parseRequest(text.getBytes(ISO_8859_1));
  }

  private static ResponseHead response(String text) throws Exception {
    return HttpHeads.parseResponse(text.getBytes(ISO_8859_1));
  }

  @Test
  void parsesARangedGet() throws Exception {
    RequestHead head =
        request("GET /bucket/key?versionId=3 HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nrange:  bytes=0-99 \r\n\r\n");
    assertThat(head.method()).isEqualTo("GET");
    assertThat(head.target()).isEqualTo("/bucket/key?versionId=3");
    assertThat(head.path()).isEqualTo("/bucket/key");
    assertThat(head.query()).isEqualTo("versionId=3");
    assertThat(head.version()).isEqualTo("HTTP/1.1");
    assertThat(head.range()).contains("bytes=0-99");
    assertThat(head.header("HOST")).contains("127.0.0.1:9000");
    assertThat(head.closesConnection()).isFalse();
    assertThat(head.expectsContinue()).isFalse();
  }

  @Test
  void readsConnectionAndExpectTokens() throws Exception {
    assertThat(request("PUT /k HTTP/1.1\r\nConnection: keep-alive, Close\r\n\r\n").closesConnection()).isTrue();
    assertThat(request("GET /k HTTP/1.0\r\n\r\n").closesConnection()).isTrue();
    assertThat(request("GET /k HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").closesConnection()).isFalse();
    assertThat(request("PUT /k HTTP/1.1\r\nExpect: 100-Continue\r\n\r\n").expectsContinue()).isTrue();
  }

  @Test
  void rejectsMalformedRequests() {
    assertThatThrownBy(() -> request("GET /\r\n\r\n")).isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> request("GET / HTTP/2\r\n\r\n")).isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> request("GET / HTTP/1.1\r\nNoColon\r\n\r\n")).isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> request("GET / HTTP/1.1\r\nA : b\r\n\r\n")).isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> request("GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n"))
        .isInstanceOf(HttpProtocolException.class);
  }

  @Test
  void parsesStatusLines() throws Exception {
    ResponseHead ok = response("HTTP/1.1 206 Partial Content\r\nContent-Length: 5\r\n\r\n");
    assertThat(ok.status()).isEqualTo(206);
    assertThat(ok.reason()).isEqualTo("Partial Content");
    assertThat(response("HTTP/1.1 100 Continue\r\n\r\n").isInterim()).isTrue();
    assertThat(response("HTTP/1.1 204\r\n\r\n").status()).isEqualTo(204);
    assertThat(response("HTTP/1.0 200 \r\n\r\n").reason()).isEmpty();
  }

  @Test
  void rejectsMalformedStatusLines() {
    assertThatThrownBy(() -> response("HTTP/1.1 20 OK\r\n\r\n")).isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> response("HTTP/1.1 2000 OK\r\n\r\n")).isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> response("ICY 200 OK\r\n\r\n")).isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> response("HTTP/1.1 abc OK\r\n\r\n")).isInstanceOf(HttpProtocolException.class);
  }
}
