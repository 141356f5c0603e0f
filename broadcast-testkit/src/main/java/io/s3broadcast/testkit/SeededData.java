package io.s3broadcast.testkit;

import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;

/**
 * Deterministic pseudo-random bytes addressed by position: byte {@code p} of the object with seed
 * {@code s} is a pure function of {@code (s, p)}. Any slice of a multi-GiB object can therefore be
 * streamed, re-streamed on retry, or checked against a ranged download without holding the object in
 * memory and without generating the bytes before it.
 *
 * <p>Each 8-byte word {@code w} is the SplitMix64 mix of {@code seed + (w + 1) * golden}, stored little
 * endian. Generation runs at several GB/s, well above any S3 backend used in tests.
 */
public final class SeededData {

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final int CHUNK = 64 * 1024;

  private SeededData() {}

  /** Fills {@code dst[off, off + len)} with the object's bytes starting at {@code position}. */
  public static void fill(long seed, long position, byte[] dst, int off, int len) {
    Objects.checkFromIndexSize(off, len, dst.length);
    if (position < 0) {
      throw new IllegalArgumentException("position < 0: " + position);
    }
    int i = off;
    int end = off + len;
    long p = position;
    // Unaligned head, byte by byte.
    while (i < end && (p & 7) != 0) {
      dst[i++] = byteAt(seed, p++);
    }
    // Whole words.
    long word = p >>> 3;
    while (end - i >= 8) {
      LONGS.set(dst, i, mix(seed, word++));
      i += 8;
    }
    p = word << 3;
    // Tail.
    while (i < end) {
      dst[i++] = byteAt(seed, p++);
    }
  }

  /** The object's bytes {@code [position, position + length)} as a new array (small slices only). */
  public static byte[] bytes(long seed, long position, int length) {
    byte[] out = new byte[length];
    fill(seed, position, out, 0, length);
    return out;
  }

  /** The object's byte at {@code position}. */
  public static byte byteAt(long seed, long position) {
    return (byte) (mix(seed, position >>> 3) >>> ((position & 7) * 8));
  }

  /** A stream of the first {@code size} bytes of the object. */
  public static InputStream stream(long seed, long size) {
    return stream(seed, 0, size);
  }

  /** A stream of the object's bytes {@code [position, position + length)}. */
  public static InputStream stream(long seed, long position, long length) {
    return new SeededInputStream(seed, position, length);
  }

  /** A provider for request bodies that restarts at {@code position} on every call (SDK retries). */
  public static ContentStreamProvider contentProvider(long seed, long position, long length) {
    return () -> stream(seed, position, length);
  }

  /**
   * An {@link AsyncRequestBody} of the object's bytes {@code [position, position + length)}, produced
   * on demand in 64 KiB buffers; each subscription starts again at {@code position}.
   */
  public static AsyncRequestBody asyncBody(long seed, long position, long length) {
    return new SeededAsyncBody(seed, position, length);
  }

  /** Hex SHA-256 of the first {@code size} bytes of the object. */
  public static String sha256Hex(long seed, long size) {
    return sha256Hex(seed, 0, size);
  }

  /** Hex SHA-256 of the object's bytes {@code [position, position + length)}. */
  public static String sha256Hex(long seed, long position, long length) {
    MessageDigest digest = sha256();
    byte[] buf = new byte[1 << 20];
    long done = 0;
    while (done < length) {
      int n = (int) Math.min(buf.length, length - done);
      fill(seed, position + done, buf, 0, n);
      digest.update(buf, 0, n);
      done += n;
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("JDK without SHA-256", e);
    }
  }

  private static long mix(long seed, long word) {
    long z = seed + (word + 1) * GOLDEN;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static final class SeededInputStream extends InputStream {
    private final long seed;
    private final long end;
    private long position;
    private long mark;

    SeededInputStream(long seed, long position, long length) {
      if (position < 0 || length < 0) {
        throw new IllegalArgumentException("position and length must be >= 0");
      }
      this.seed = seed;
      this.position = position;
      this.mark = position;
      this.end = Math.addExact(position, length);
    }

    @Override
    public int read() {
      return position < end ? byteAt(seed, position++) & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      if (len == 0) {
        return 0;
      }
      if (position >= end) {
        return -1;
      }
      int n = (int) Math.min(len, end - position);
      fill(seed, position, b, off, n);
      position += n;
      return n;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, end - position));
      position += skipped;
      return skipped;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, end - position);
    }

    @Override
    public boolean markSupported() {
      return true;
    }

    @Override
    public synchronized void mark(int readlimit) {
      mark = position;
    }

    @Override
    public synchronized void reset() {
      position = mark;
    }
  }

  private static final class SeededAsyncBody implements AsyncRequestBody {
    private final long seed;
    private final long position;
    private final long length;

    SeededAsyncBody(long seed, long position, long length) {
      if (position < 0 || length < 0) {
        throw new IllegalArgumentException("position and length must be >= 0");
      }
      this.seed = seed;
      this.position = position;
      this.length = length;
    }

    @Override
    public Optional<Long> contentLength() {
      return Optional.of(length);
    }

    @Override
    public void subscribe(Subscriber<? super ByteBuffer> subscriber) {
      subscriber.onSubscribe(new Emitter(subscriber));
    }

    /** Emits on the requesting thread; a re-entrant request only adds demand (trampoline). */
    private final class Emitter implements Subscription {
      private final Subscriber<? super ByteBuffer> subscriber;
      private final AtomicLong demand = new AtomicLong();
      private final AtomicBoolean emitting = new AtomicBoolean();
      private volatile boolean done;
      private long sent;

      Emitter(Subscriber<? super ByteBuffer> subscriber) {
        this.subscriber = subscriber;
      }

      @Override
      public void request(long n) {
        if (done) {
          return;
        }
        if (n <= 0) {
          done = true;
          subscriber.onError(new IllegalArgumentException("request(" + n + ") violates rule 3.9"));
          return;
        }
        demand.getAndAccumulate(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
        drain();
      }

      private void drain() {
        while (emitting.compareAndSet(false, true)) {
          try {
            while (!done && demand.get() > 0) {
              if (sent == length) {
                done = true;
                subscriber.onComplete();
                return;
              }
              int n = (int) Math.min(CHUNK, length - sent);
              byte[] chunk = new byte[n];
              fill(seed, position + sent, chunk, 0, n);
              sent += n;
              demand.decrementAndGet();
              subscriber.onNext(ByteBuffer.wrap(chunk));
            }
            if (!done && sent == length) {
              done = true;
              subscriber.onComplete();
              return;
            }
          } finally {
            emitting.set(false);
          }
          if (done || demand.get() == 0) {
            return;
          }
        }
      }

      @Override
      public void cancel() {
        done = true;
      }
    }
  }
}
