package io.s3broadcast.testkit.proxy;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BodyFramingTest {

  private static BodyFraming request(String headers) throws Exception {
    return BodyFraming.forRequest(
        HttpHeads.parseRequest(("PUT /k HTTP/1.1\r\n" + headers + "\r\n").getBytes(ISO_8859_1)));
  }

  private static BodyFraming response(String method, String statusAndHeaders) throws Exception {
    return BodyFraming.forResponse(
        method, HttpHeads.parseResponse(("HTTP/1.1 " + statusAndHeaders + "\r\n").getBytes(ISO_8859_1)));
  }

  @Test
  void requestBodies() throws Exception {
    assertThat(request("")).isEqualTo(BodyFraming.NONE);
    assertThat(request("Content-Length: 0\r\n")).isEqualTo(BodyFraming.NONE);
    assertThat(request("Content-Length: 42\r\n")).isEqualTo(BodyFraming.fixed(42));
    assertThat(request("Content-Length: 42, 42\r\n")).isEqualTo(BodyFraming.fixed(42));
    assertThat(request("Transfer-Encoding: chunked\r\nContent-Length: 42\r\n")).isEqualTo(BodyFraming.CHUNKED);
    assertThat(request("Transfer-Encoding: gzip, chunked\r\n")).isEqualTo(BodyFraming.CHUNKED);
    assertThat(request("Content-Length: 5368709120\r\n").length()).isEqualTo(5L << 30);
  }

  @Test
  void badRequestFramingIsRejected() {
    assertThatThrownBy(() -> request("Content-Length: 1\r\nContent-Length: 2\r\n"))
        .isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> request("Content-Length: -1\r\n")).isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> request("Content-Length: 1e3\r\n")).isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> request("Transfer-Encoding: gzip\r\n")).isInstanceOf(HttpProtocolException.class);
  }

  @Test
  void responseBodies() throws Exception {
    assertThat(response("GET", "200 OK\r\nContent-Length: 10\r\n")).isEqualTo(BodyFraming.fixed(10));
    assertThat(response("HEAD", "200 OK\r\nContent-Length: 10\r\n")).isEqualTo(BodyFraming.NONE);
    assertThat(response("GET", "204 No Content\r\n")).isEqualTo(BodyFraming.NONE);
    assertThat(response("GET", "304 Not Modified\r\nContent-Length: 10\r\n")).isEqualTo(BodyFraming.NONE);
    assertThat(response("PUT", "100 Continue\r\n")).isEqualTo(BodyFraming.NONE);
    assertThat(response("GET", "200 OK\r\nTransfer-Encoding: chunked\r\n")).isEqualTo(BodyFraming.CHUNKED);
    assertThat(response("GET", "200 OK\r\nTransfer-Encoding: gzip\r\n")).isEqualTo(BodyFraming.UNTIL_CLOSE);
    assertThat(response("GET", "200 OK\r\n")).isEqualTo(BodyFraming.UNTIL_CLOSE);
  }
}
