package io.s3broadcast.testkit.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private final FakeThrottleClock clock = new FakeThrottleClock();

  @Test
  void unlimitedNeverWaits() {
    TokenBucket bucket = new TokenBucket(FaultProxy.UNLIMITED, clock);
    assertThat(bucket.tryTake(Long.MAX_VALUE / 2)).isZero();
    assertThat(bucket.tryTake(Long.MAX_VALUE / 2)).isZero();
    assertThat(bucket.chunkSize()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void startsFullThenOverdrawsOnceThenWaitsForTheDebt() {
    TokenBucket bucket = new TokenBucket(1000, clock); // capacity 100 tokens
    assertThat(bucket.capacity()).isEqualTo(100.0);
    assertThat(bucket.tryTake(60)).isZero();
    assertThat(bucket.tryTake(60)).isZero(); // 40 left: may overdraw to -20
    assertThat(bucket.tokens()).isEqualTo(-20.0, within(1e-9));
    assertThat(bucket.tryTake(1)).isEqualTo(20_000_000L); // 20 tokens at 1000/s
    clock.advance(19_000_000L);
    assertThat(bucket.tryTake(1)).isEqualTo(1_000_000L);
    clock.advance(1_000_000L);
    assertThat(bucket.tryTake(1)).isZero();
  }

  @Test
  void refillStopsAtCapacity() {
    TokenBucket bucket = new TokenBucket(1000, clock);
    bucket.tryTake(100);
    clock.advance(60_000_000_000L);
    assertThat(bucket.tokens()).isEqualTo(100.0);
  }

  @Test
  void aLongTransferTakesItsLengthOverTheRateMinusTheBurst() throws Exception {
    long rate = 256 * 1024;
    long total = 4L << 20;
    TokenBucket bucket = new TokenBucket(rate, clock);
    int chunk = bucket.chunkSize();
    assertThat(chunk).isEqualTo((int) (rate / 50));
    AtomicInteger flushes = new AtomicInteger();
    long waited = 0;
    for (long sent = 0; sent < total; sent += chunk) {
      waited += bucket.take(Math.min(chunk, total - sent), flushes::incrementAndGet);
    }
    double burst = bucket.capacity();
    long lowest = (long) ((total - burst - chunk) * 1e9 / rate);
    long highest = (long) ((total - burst) * 1e9 / rate) + 1_000_000L;
    assertThat(waited).isBetween(lowest, highest).isEqualTo(clock.slept());
    assertThat(flushes.get()).isPositive();
  }

  @Test
  void waitsAreSlicedSoThatRateChangesApplySoon() throws Exception {
    TokenBucket bucket = new TokenBucket(100, clock); // capacity 10 tokens
    bucket.tryTake(10);
    bucket.tryTake(100); // 1 s of debt
    ThrottleClock recording =
        new ThrottleClock() {
          @Override
          public long nanoTime() {
            return clock.nanoTime();
          }

          @Override
          public void sleepNanos(long nanos) throws InterruptedException {
            assertThat(nanos).isLessThanOrEqualTo(TokenBucket.MAX_WAIT_NANOS);
            clock.sleepNanos(nanos);
          }
        };
    TokenBucket sliced = new TokenBucket(100, recording);
    sliced.tryTake(10);
    sliced.tryTake(100);
    assertThat(sliced.take(1, () -> {})).isGreaterThanOrEqualTo(1_000_000_000L);
  }

  @Test
  void rateChangesApplyToTheBalance() {
    TokenBucket bucket = new TokenBucket(1000, clock);
    bucket.tryTake(100);
    bucket.tryTake(1000); // deep in debt
    assertThat(bucket.tryTake(1)).isPositive();

    bucket.setRate(FaultProxy.UNLIMITED);
    assertThat(bucket.tryTake(1_000_000)).isZero();

    bucket.setRate(1000); // from unlimited: starts full again
    assertThat(bucket.tokens()).isEqualTo(100.0);

    bucket.setRate(100); // lower rate: balance capped at the new capacity
    assertThat(bucket.tokens()).isEqualTo(10.0);
    assertThat(bucket.rate()).isEqualTo(100);
  }

  @Test
  void takeNowGoesIntoDebtAndSaysHowLongItLasts() {
    TokenBucket bucket = new TokenBucket(1000, clock); // 100 tokens
    assertThat(bucket.takeNow(50)).isZero();
    assertThat(bucket.takeNow(150)).isEqualTo(100_000_000L); // 100 tokens of debt at 1000/s
    clock.advance(100_000_000L);
    assertThat(bucket.takeNow(0)).isZero();
  }
}
