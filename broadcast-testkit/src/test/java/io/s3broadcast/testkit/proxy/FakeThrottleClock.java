package io.s3broadcast.testkit.proxy;

import java.util.concurrent.atomic.AtomicLong;

/** A clock whose sleeps advance its time instantly. */
class FakeThrottleClock implements ThrottleClock {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final AtomicLong slept = new AtomicLong();

  @Override
  public long nanoTime() {
    return now.get();
  }

  @Override
  public void sleepNanos(long nanos) throws InterruptedException {
    slept.addAndGet(nanos);
    now.addAndGet(nanos);
  }

  void advance(long nanos) {
    now.addAndGet(nanos);
  }

  long slept() {
    return slept.get();
  }
}
