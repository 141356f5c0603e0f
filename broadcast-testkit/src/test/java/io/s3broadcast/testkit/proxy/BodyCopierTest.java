package io.s3broadcast.testkit.proxy;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import org.junit.jupiter.api.Test;

class BodyCopierTest {

  private static String copy(HttpInput in, BodyFraming framing) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BodyCopier.copy(in, framing, out::write);
    return out.toString(ISO_8859_1);
  }

  @Test
  void fixedBodyStopsAtItsLengthLeavingTheNextMessage() throws Exception {
    HttpInput in = OneByteInputStream.input("helloGET / HTTP/1.1\r\n\r\n");
    assertThat(copy(in, BodyFraming.fixed(5))).isEqualTo("hello");
    assertThat(new String(in.readHead(100), ISO_8859_1)).isEqualTo("GET / HTTP/1.1\r\n\r\n");
  }

  @Test
  void chunkedBodyIsForwardedVerbatimWithExtensionsAndTrailers() throws Exception {
    String body = "5;name=v\r\nhello\r\nA\r\n0123456789\r\n0\r\nx-amz-checksum-crc32: AAAAAA==\r\n\r\n";
    HttpInput in = OneByteInputStream.input(body + "HTTP/1.1 200 OK\r\n\r\n");
    assertThat(copy(in, BodyFraming.CHUNKED)).isEqualTo(body);
    assertThat(new String(in.readHead(100), ISO_8859_1)).startsWith("HTTP/1.1 200");
  }

  @Test
  void chunkedBodyWithoutTrailers() throws Exception {
    String body = "3\r\nabc\r\n0\r\n\r\n";
    assertThat(copy(OneByteInputStream.input(body), BodyFraming.CHUNKED)).isEqualTo(body);
  }

  @Test
  void untilCloseTakesEverything() throws Exception {
    assertThat(copy(OneByteInputStream.input("all of it"), BodyFraming.UNTIL_CLOSE)).isEqualTo("all of it");
  }

  @Test
  void shortBodiesAreErrors() {
    assertThatThrownBy(() -> copy(OneByteInputStream.input("abc"), BodyFraming.fixed(5)))
        .isInstanceOf(EOFException.class);
    assertThatThrownBy(() -> copy(OneByteInputStream.input("5\r\nabc"), BodyFraming.CHUNKED))
        .isInstanceOf(EOFException.class);
  }

  @Test
  void malformedChunksAreErrors() {
    assertThatThrownBy(() -> copy(OneByteInputStream.input("zz\r\n"), BodyFraming.CHUNKED))
        .isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> copy(OneByteInputStream.input("3\r\nabcX\r\n"), BodyFraming.CHUNKED))
        .isInstanceOf(HttpProtocolException.class);
    assertThatThrownBy(() -> copy(OneByteInputStream.input("1234567890abcdef0\r\n"), BodyFraming.CHUNKED))
        .isInstanceOf(HttpProtocolException.class);
  }

  @Test
  void chunkSizes() throws Exception {
    assertThat(BodyCopier.chunkSize("1F\r\n".getBytes(ISO_8859_1))).isEqualTo(31);
    assertThat(BodyCopier.chunkSize("0;x=y\r\n".getBytes(ISO_8859_1))).isZero();
    assertThat(BodyCopier.chunkSize("ffffffff\r\n".getBytes(ISO_8859_1))).isEqualTo(0xffffffffL);
  }
}
