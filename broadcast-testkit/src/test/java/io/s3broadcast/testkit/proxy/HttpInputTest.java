package io.s3broadcast.testkit.proxy;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HttpInputTest {

  private static String head(HttpInput in) throws Exception {
    byte[] raw = in.readHead(1024);
    return raw == null ? null : new String(raw, ISO_8859_1);
  }

  @Test
  void readsPipelinedHeadsByteByByte() throws Exception {
    HttpInput in =
        OneByteInputStream.input("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
    assertThat(head(in)).isEqualTo("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(head(in)).isEqualTo("GET /b HTTP/1.1\r\n\r\n");
    assertThat(head(in)).isNull();
  }

  @Test
  void skipsEmptyLinesBeforeTheStartLineAndAcceptsBareLf() throws Exception {
    HttpInput in = OneByteInputStream.input("\r\n\r\nGET / HTTP/1.1\nA: b\n\n");
    assertThat(head(in)).isEqualTo("GET / HTTP/1.1\nA: b\n\n");
  }

  @Test
  void crInsideAValueIsNotAnEnd() throws Exception {
    HttpInput in = OneByteInputStream.input("GET / HTTP/1.1\r\nA: b\rc\r\n\r\nrest");
    assertThat(head(in)).isEqualTo("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n");
    assertThat(in.buffered()).isLessThanOrEqualTo(16);
  }

  @Test
  void endOfStreamInsideAHeadIsAnError() {
    HttpInput in = OneByteInputStream.input("GET / HTTP/1.1\r\nHost");
    assertThatThrownBy(() -> in.readHead(1024)).isInstanceOf(EOFException.class);
  }

  @Test
  void onlyEmptyLinesThenEndIsACleanEnd() throws Exception {
    assertThat(head(OneByteInputStream.input("\r\n"))).isNull();
  }

  @Test
  void rejectsOversizedHeads() {
    HttpInput in = OneByteInputStream.input("GET / HTTP/1.1\r\nA: " + "x".repeat(100) + "\r\n\r\n");
    assertThatThrownBy(() -> in.readHead(64)).isInstanceOf(HttpProtocolException.class);
  }

  @Test
  void headBiggerThanTheBufferIsAssembled() throws Exception {
    String text = "GET / HTTP/1.1\r\nA: " + "y".repeat(5000) + "\r\n\r\n";
    HttpInput in = new HttpInput(new ByteArrayInputStream(text.getBytes(ISO_8859_1)), 100, () -> {});
    assertThat(new String(in.readHead(8192), ISO_8859_1)).isEqualTo(text);
  }

  @Test
  void transferRespectsTheLimitAndEnd() throws Exception {
    HttpInput in = new HttpInput(new ByteArrayInputStream(new byte[10]), 4, () -> {});
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(in.transferTo(out::write, 3)).isEqualTo(3);
    assertThat(in.transferTo(out::write, 100)).isEqualTo(1);
    assertThat(in.transferTo(out::write, 100)).isEqualTo(4);
    assertThat(in.transferTo(out::write, 100)).isEqualTo(2);
    assertThat(in.transferTo(out::write, 100)).isEqualTo(-1);
    assertThat(out.size()).isEqualTo(10);
  }

  @Test
  void flushesThePairedOutputBeforeEveryBlockingRead() throws Exception {
    AtomicInteger flushes = new AtomicInteger();
    HttpInput in =
        new HttpInput(
            new OneByteInputStream("GET / HTTP/1.1\r\n\r\n".getBytes(ISO_8859_1)), 16, flushes::incrementAndGet);
    in.readHead(1024);
    assertThat(flushes.get()).isEqualTo("GET / HTTP/1.1\r\n\r\n".length());
  }
}
