/**
 * Fake time for tests: {@link io.s3broadcast.testkit.time.ManualScheduler} is a
 * {@link java.util.concurrent.ScheduledExecutorService} whose clock only moves when the test calls
 * {@link io.s3broadcast.testkit.time.ManualScheduler#advance(java.time.Duration)}, with matching
 * {@link com.google.common.base.Ticker} and {@link java.time.Clock} views, so that timeouts, retries with
 * back-off, heartbeats and polls run exactly when the test says, on the test's thread.
 */
package io.s3broadcast.testkit.time;
