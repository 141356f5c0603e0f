package io.s3broadcast.testkit.proxy;

/**
 * The time source and sleeper behind the proxy's bandwidth limits; tests inject a fake one to
 * check the token-bucket accounting without waiting.
 */
public interface ThrottleClock {
  /** A monotonic time in nanoseconds, as {@link System#nanoTime()}. */
  long nanoTime();

  /** Waits about {@code nanos} nanoseconds. */
  void sleepNanos(long nanos) throws InterruptedException;

  /** The real clock. */
  static ThrottleClock system() {
    return SystemThrottleClock.INSTANCE;
  }
}
