package io.s3broadcast.testkit.proxy;

import java.io.Flushable;
import java.io.IOException;

/**
 * A token bucket limiting bytes per second, whose rate can change at any time. A rate of zero or
 * less means unlimited.
 *
 * <p>The bucket holds at most {@link #capacity()} tokens (a tenth of a second at the rate) and
 * starts full. A taker may overdraw: {@link #tryTake} succeeds whenever the balance is not
 * negative and then subtracts the whole request, so a chunk of any size passes and the debt is
 * paid by later takers' waiting. Thread-safe; time comes from the injected {@link ThrottleClock}.
 */
final class TokenBucket {
  /** The longest single wait, so that rate changes take effect quickly. */
  static final long MAX_WAIT_NANOS = 50_000_000L;

  private static final int MAX_CHUNK = 64 * 1024;

  private final ThrottleClock clock;
  private long rate;
  private double tokens;
  private long last;

  TokenBucket(long bytesPerSecond, ThrottleClock clock) {
    this.clock = clock;
    this.rate = Math.max(0, bytesPerSecond);
    this.tokens = capacity(rate);
    this.last = clock.nanoTime();
  }

  synchronized long rate() {
    return rate;
  }

  synchronized void setRate(long bytesPerSecond) {
    long now = clock.nanoTime();
    long newRate = Math.max(0, bytesPerSecond);
    if (rate <= 0) {
      tokens = capacity(newRate);
    } else {
      refill(now);
      tokens = Math.min(tokens, capacity(newRate));
    }
    rate = newRate;
    last = now;
  }

  /** Tokens the bucket can hold: a tenth of a second's worth, at least one. */
  synchronized double capacity() {
    return capacity(rate);
  }

  private static double capacity(long rate) {
    return Math.max(1.0, rate / 10.0);
  }

  /** The current balance (negative while in debt), for tests. */
  synchronized double tokens() {
    if (rate > 0) {
      refill(clock.nanoTime());
    }
    return tokens;
  }

  /** The largest write that should be charged at once: a fiftieth of a second's worth. */
  synchronized int chunkSize() {
    return rate <= 0 ? Integer.MAX_VALUE : (int) Math.max(1, Math.min(MAX_CHUNK, rate / 50));
  }

  /**
   * Takes {@code n} tokens if the balance is not negative.
   *
   * @return 0 if taken, else the nanoseconds until the balance is back to zero at the current rate
   */
  synchronized long tryTake(long n) {
    if (rate <= 0) {
      return 0;
    }
    refill(clock.nanoTime());
    if (tokens >= 0) {
      tokens -= n;
      return 0;
    }
    return Math.max(1, (long) Math.ceil(-tokens * 1e9 / rate));
  }

  /**
   * Takes {@code n} tokens now, into debt if need be.
   *
   * @return 0 if the balance is still not negative, else the nanoseconds until it is back to zero
   */
  synchronized long takeNow(long n) {
    if (rate <= 0) {
      return 0;
    }
    refill(clock.nanoTime());
    tokens -= n;
    return tokens >= 0 ? 0 : Math.max(1, (long) Math.ceil(-tokens * 1e9 / rate));
  }

  /**
   * Takes {@code n} tokens, waiting on the clock as needed, in waits of at most {@link
   * #MAX_WAIT_NANOS} so that a rate change applies within that time.
   *
   * @param beforeWait runs once before the first wait (to flush buffered output)
   * @return nanoseconds waited
   */
  long take(long n, Flushable beforeWait) throws IOException, InterruptedException {
    long waited = 0;
    boolean announced = false;
    while (true) {
      long wait = tryTake(n);
      if (wait == 0) {
        return waited;
      }
      if (!announced) {
        beforeWait.flush();
        announced = true;
      }
      long slice = Math.min(wait, MAX_WAIT_NANOS);
      clock.sleepNanos(slice);
      waited += slice;
    }
  }

  private void refill(long now) {
    long elapsed = now - last;
    if (elapsed > 0) {
      tokens = Math.min(capacity(rate), tokens + elapsed * (rate / 1e9));
      last = now;
    }
  }
}
