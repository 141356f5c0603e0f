package io.s3broadcast.testkit.proxy;

import java.util.concurrent.TimeUnit;

/** {@link ThrottleClock#system()}. */
enum SystemThrottleClock implements ThrottleClock {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public void sleepNanos(long nanos) throws InterruptedException {
    TimeUnit.NANOSECONDS.sleep(nanos);
  }
}
