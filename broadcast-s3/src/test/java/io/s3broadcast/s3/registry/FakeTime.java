package io.s3broadcast.s3.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits for work whose retries pause on a {@link ManualScheduler}, moving its fake time on in small steps. */
final class FakeTime {

    private FakeTime() {
    }

    static void drive(ManualScheduler scheduler, CompletableFuture<?> work, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!work.isDone()) {
            assertThat(System.nanoTime()).as("done within " + timeout).isLessThan(deadline);
            scheduler.advance(Duration.ofMillis(10));
            try {
                work.get(10, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // not yet
            }
        }
        work.join();
    }
}
