package io.s3broadcast.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

class SeededDataTest {

  @Test
  void sliceAtAnyOffsetMatchesTheWholeObject() {
    byte[] whole = SeededData.bytes(42, 0, 1000);
    for (int from = 0; from < 40; from++) {
      for (int len = 0; len < 40; len++) {
        byte[] part = SeededData.bytes(42, from, len);
        for (int i = 0; i < len; i++) {
          assertThat(part[i]).isEqualTo(whole[from + i]);
          assertThat(SeededData.byteAt(42, from + i)).isEqualTo(whole[from + i]);
        }
      }
    }
  }

  @Test
  void seedsGiveDifferentData() {
    assertThat(SeededData.bytes(1, 0, 64)).isNotEqualTo(SeededData.bytes(2, 0, 64));
    assertThat(SeededData.bytes(1, 0, 64)).isEqualTo(SeededData.bytes(1, 0, 64));
  }

  @Test
  void streamReadsTheSameBytesInOddChunksAndStopsAtTheEnd() throws IOException {
    byte[] expected = SeededData.bytes(7, 3, 10_000);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (InputStream in = SeededData.stream(7, 3, 10_000)) {
      byte[] buf = new byte[333];
      int n;
      while ((n = in.read(buf, 0, 1 + out.size() % 333)) > 0) {
        out.write(buf, 0, n);
      }
      assertThat(in.read()).isEqualTo(-1);
    }
    assertThat(out.toByteArray()).isEqualTo(expected);
  }

  @Test
  void streamMarkAndSkip() throws IOException {
    try (InputStream in = SeededData.stream(9, 100)) {
      in.mark(100);
      assertThat(in.skip(10)).isEqualTo(10);
      assertThat((byte) in.read()).isEqualTo(SeededData.byteAt(9, 10));
      in.reset();
      assertThat((byte) in.read()).isEqualTo(SeededData.byteAt(9, 0));
      assertThat(in.skip(1000)).isEqualTo(99);
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void sha256MatchesADigestOfTheBytes() throws Exception {
    byte[] data = SeededData.bytes(5, 17, 3_000_001);
    String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    assertThat(SeededData.sha256Hex(5, 17, 3_000_001)).isEqualTo(expected);
  }

  @Test
  void asyncBodyEmitsTheSliceOneBufferAtATimeAndCanBeResubscribed() {
    long length = 200_000;
    byte[] expected = SeededData.bytes(11, 5, (int) length);
    var body = SeededData.asyncBody(11, 5, length);
    assertThat(body.contentLength()).contains(length);
    for (int round = 0; round < 2; round++) {
      OneAtATime subscriber = new OneAtATime();
      body.subscribe(subscriber);
      assertThat(subscriber.done).isCompleted();
      assertThat(subscriber.bytes.toByteArray()).isEqualTo(expected);
      assertThat(subscriber.buffers).allMatch(size -> size <= 64 * 1024);
    }
  }

  @Test
  void emptyAsyncBodyCompletesWithoutDemand() {
    OneAtATime subscriber = new OneAtATime();
    subscriber.requestOnSubscribe = false;
    SeededData.asyncBody(1, 0, 0).subscribe(subscriber);
    subscriber.subscription.request(1);
    assertThat(subscriber.done).isCompleted();
  }

  /** Requests one buffer from inside onNext, so emission re-enters request(). */
  private static final class OneAtATime implements Subscriber<ByteBuffer> {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final List<Integer> buffers = new ArrayList<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    boolean requestOnSubscribe = true;
    Subscription subscription;

    @Override
    public void onSubscribe(Subscription s) {
      subscription = s;
      if (requestOnSubscribe) {
        s.request(1);
      }
    }

    @Override
    public void onNext(ByteBuffer buffer) {
      buffers.add(buffer.remaining());
      byte[] copy = new byte[buffer.remaining()];
      buffer.get(copy);
      bytes.writeBytes(copy);
      subscription.request(1);
    }

    @Override
    public void onError(Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      done.complete(null);
    }
  }
}
