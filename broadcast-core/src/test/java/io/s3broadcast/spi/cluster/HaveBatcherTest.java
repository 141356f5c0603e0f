package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HaveBatcherTest {

    private final ManualScheduler loop = new ManualScheduler();
    private final List<int[]> batches = new ArrayList<>();

    @Test
    void piecesStoredInOneTurnGoOutAsOneBatchAtTheEndOfTheTurn() {
        HaveBatcher b = new HaveBatcher(loop, Duration.ZERO, batches::add);
        b.stored(7);
        b.stored(3);
        b.stored(7); // reported twice: announced once
        b.stored(9);
        assertThat(batches).isEmpty();
        assertThat(b.pending()).isEqualTo(3);
        assertThat(loop.delays()).containsExactly(Duration.ZERO); // one flush scheduled, not one per piece
        loop.runPending();
        assertThat(batches).hasSize(1);
        assertThat(batches.get(0)).containsExactly(7, 3, 9);
        b.stored(7); // a new turn: a new batch
        loop.runPending();
        assertThat(batches).hasSize(2);
        assertThat(batches.get(1)).containsExactly(7);
        loop.runPending();
        assertThat(batches).hasSize(2); // nothing pending: nothing emitted
    }

    @Test
    void aWindowGathersPiecesForThatLong() {
        HaveBatcher b = new HaveBatcher(loop, Duration.ofMillis(5), batches::add);
        b.stored(1);
        loop.advance(Duration.ofMillis(3));
        b.stored(2);
        assertThat(batches).isEmpty();
        loop.advance(Duration.ofMillis(2));
        assertThat(batches).hasSize(1);
        assertThat(batches.get(0)).containsExactly(1, 2);
        b.stored(3);
        loop.advance(Duration.ofMillis(5));
        assertThat(batches.get(1)).containsExactly(3);
    }

    @Test
    void oneFlushPerPeerPerBatch() {
        Map<String, List<Integer>> written = new HashMap<>();
        Map<String, Integer> flushes = new HashMap<>();
        List<String> peers = List.of("a", "b");
        HaveBatcher b = new HaveBatcher(loop, Duration.ZERO, batch -> {
            for (String p : peers) {
                for (int piece : batch) {
                    written.computeIfAbsent(p, k -> new ArrayList<>()).add(piece);
                }
                flushes.merge(p, 1, Integer::sum);
            }
        });
        for (int piece = 0; piece < 40; piece++) {
            b.stored(piece);
        }
        loop.runPending();
        assertThat(written.get("a")).hasSize(40);
        assertThat(written.get("b")).hasSize(40);
        assertThat(flushes).containsEntry("a", 1).containsEntry("b", 1);
    }

    @Test
    void anExplicitFlushEmitsAtOnceAndCloseDropsTheRest() {
        HaveBatcher b = new HaveBatcher(loop, Duration.ZERO, batches::add);
        b.stored(4);
        b.flush(); // e.g. before DONE
        assertThat(batches).hasSize(1);
        loop.runPending();
        assertThat(batches).hasSize(1);
        b.stored(5);
        b.close();
        b.stored(6);
        loop.runPending();
        assertThat(batches).hasSize(1);
        assertThat(b.pending()).isZero();
        assertThatThrownBy(() -> b.stored(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new HaveBatcher(loop, Duration.ofMillis(-1), batches::add))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
