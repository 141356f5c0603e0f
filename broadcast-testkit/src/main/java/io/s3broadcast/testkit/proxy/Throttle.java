package io.s3broadcast.testkit.proxy;

import java.io.IOException;
import java.util.Objects;

/**
 * A byte-rate limit that several users share: a node's emulated download link, charged by the proxy for that
 * node's S3 bytes and by the bench for its peer bytes. A rate of {@link FaultProxy#UNLIMITED} means no limit; the
 * rate can change at any time. Thread-safe; time from the injected {@link ThrottleClock}.
 */
public final class Throttle {
  private final TokenBucket bucket;

  private Throttle(long bytesPerSecond, ThrottleClock clock) {
    this.bucket = new TokenBucket(bytesPerSecond, clock);
  }

  /** A limit of {@code bytesPerSecond} on the real clock. */
  public static Throttle of(long bytesPerSecond) {
    return of(bytesPerSecond, ThrottleClock.system());
  }

  public static Throttle of(long bytesPerSecond, ThrottleClock clock) {
    return new Throttle(bytesPerSecond, Objects.requireNonNull(clock));
  }

  public long rate() {
    return bucket.rate();
  }

  public void setRate(long bytesPerSecond) {
    bucket.setRate(bytesPerSecond);
  }

  /**
   * Charges {@code n} bytes if the limit is not in debt.
   *
   * @return 0 if charged, else the nanoseconds to wait before asking again
   */
  public long tryCharge(long n) {
    return bucket.tryTake(n);
  }

  /**
   * Charges {@code n} bytes at once, into debt if need be, for a user that cannot wait in place (an event loop
   * that pauses reading instead).
   *
   * @return 0 if the limit is not in debt now, else the nanoseconds until the debt is paid
   */
  public long chargeNow(long n) {
    return bucket.takeNow(n);
  }

  /**
   * Charges {@code n} bytes, waiting as needed.
   *
   * @return nanoseconds waited
   */
  public long charge(long n) throws InterruptedException {
    try {
      return bucket.take(n, () -> {});
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: the flush does nothing", e);
    }
  }

  TokenBucket bucket() {
    return bucket;
  }

  @Override
  public String toString() {
    return "Throttle[" + Rates.formatRate(rate()) + "/s]";
  }
}
