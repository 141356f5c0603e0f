package io.s3broadcast.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventQueueTest {

    @Test
    void runsEventsInTimeOrderThenInTheOrderScheduled() {
        EventQueue q = new EventQueue();
        List<String> seen = new ArrayList<>();
        q.at(30, () -> seen.add("c@" + q.now()));
        q.at(10, () -> seen.add("a@" + q.now()));
        q.at(10, () -> seen.add("b@" + q.now()));
        q.at(20, () -> q.after(5, () -> seen.add("d@" + q.now())));
        assertThat(q.run(() -> false, Long.MAX_VALUE)).isFalse();
        assertThat(seen).containsExactly("a@10", "b@10", "d@25", "c@30");
        assertThat(q.executed()).isEqualTo(5);
        assertThat(q.ticker().read()).isEqualTo(30);
    }

    @Test
    void stopsWhenDoneOrAtTheLimit() {
        EventQueue q = new EventQueue();
        int[] count = {0};
        for (int i = 1; i <= 10; i++) {
            q.at(i * 100L, () -> count[0]++);
        }
        assertThat(q.run(() -> count[0] == 3, Long.MAX_VALUE)).isTrue();
        assertThat(q.now()).isEqualTo(300);
        assertThat(q.run(() -> false, 650)).isFalse();
        assertThat(count[0]).isEqualTo(6);
        assertThat(q.pending()).isEqualTo(4);
    }

    @Test
    void refusesAnEventInThePast() {
        EventQueue q = new EventQueue();
        q.at(100, () -> { });
        q.run(() -> false, Long.MAX_VALUE);
        assertThatThrownBy(() -> q.at(50, () -> { })).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("before now");
    }
}
