package io.s3broadcast.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class MembershipTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final NodeInfo A = new NodeInfo("a", "10.0.0.1", 7000);
    private static final NodeInfo B = new NodeInfo("b", "10.0.0.2", 7000);
    private static final NodeInfo C = new NodeInfo("c", "10.0.0.3", 7000);

    private final ManualScheduler time = new ManualScheduler();
    private final FakeRegistry registry = new FakeRegistry();

    @Test
    void completesAsSoonAsTheExpectedNumberIsThere() {
        registry.start();
        registry.register(A);
        CompletableFuture<Membership> wait = registry.awaitMembers(3, TIMEOUT, time);
        registry.join(B);
        time.advance(Duration.ofSeconds(10));
        assertThat(wait).isNotDone();
        registry.join(C);
        assertThat(wait).isCompletedWithValue(new Membership(java.util.List.of(A, B, C), 3, false));
        assertThat(time.scheduled()).as("timer cancelled").isEmpty();
    }

    @Test
    void whoeverSeesTheResultSeesTheTimerGone() {
        registry.start();
        registry.register(A);
        CompletableFuture<Membership> wait = registry.awaitMembers(2, TIMEOUT, time);
        // A caller's own stage runs before stages the wait added earlier (a future runs its last-added first): it
        // must still find the timer cancelled, as a caller on another thread returning from get() would.
        java.util.List<Object> seen = new java.util.ArrayList<>();
        wait.whenComplete((m, e) -> seen.add(java.util.List.copyOf(time.scheduled())));
        registry.join(B);
        assertThat(wait).isCompleted();
        assertThat(seen).containsExactly(java.util.List.of());
    }

    @Test
    void startsWithWhoeverIsThereAtTheTimeout() {
        registry.start();
        registry.register(A);
        CompletableFuture<Membership> wait = registry.awaitMembers(4, TIMEOUT, time);
        registry.join(B);
        time.advance(TIMEOUT.minusNanos(1));
        assertThat(wait).isNotDone();
        time.advance(Duration.ofNanos(1));
        Membership m = wait.join();
        assertThat(m.members()).containsExactly(A, B);
        assertThat(m.timedOut()).isTrue();
        assertThat(m.complete()).isFalse();
        registry.join(C);
        assertThat(wait.join().members()).containsExactly(A, B);
    }

    @Test
    void membersThatLeaveStopCounting() {
        registry.start();
        registry.join(A);
        registry.join(B);
        CompletableFuture<Membership> wait = registry.awaitMembers(3, TIMEOUT, time);
        registry.drop("b");
        registry.join(C);
        assertThat(wait).isNotDone();
        registry.join(B);
        assertThat(wait.join().members()).containsExactly(A, B, C);
    }

    @Test
    void alreadyEnoughCompletesAtOnceWithoutATimer() {
        registry.view(java.util.List.of(A, B));
        CompletableFuture<Membership> wait = registry.awaitMembers(2, TIMEOUT, time);
        assertThat(wait.join().members()).containsExactly(A, B);
        assertThat(time.scheduled()).isEmpty();
    }

    @Test
    void noExpectedCountStartsAtOnce() {
        registry.join(A);
        Membership m = registry.awaitMembers(0, TIMEOUT, time).join();
        assertThat(m.members()).containsExactly(A);
        assertThat(m.timedOut()).isFalse();
        assertThat(m.complete()).isTrue();
    }

    @Test
    void cancellingStopsTheWatchAndTheTimer() {
        registry.join(A);
        CompletableFuture<Membership> wait = registry.awaitMembers(5, TIMEOUT, time);
        wait.cancel(false);
        assertThat(time.scheduled()).isEmpty();
        RecordingListener other = new RecordingListener();
        registry.watch(other);
        registry.join(B);
        assertThat(other.events).containsExactly("+a", "+b");
    }

    @Test
    void negativeExpectedFailsTheFuture() {
        assertThat(registry.awaitMembers(-1, TIMEOUT, time)).isCompletedExceptionally();
    }
}
