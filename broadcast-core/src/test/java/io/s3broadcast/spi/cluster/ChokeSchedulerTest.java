package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.spi.cluster.ChokeScheduler.Decisions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChokeSchedulerTest {

    private static final Duration INTERVAL = Duration.ofSeconds(10);

    private final FakeTicker ticker = new FakeTicker();

    private ChokeSchedulerBuilder builder(long seed) {
        return ChokeScheduler.builder().ticker(ticker).random(new Random(seed)).interval(INTERVAL)
                .minFlipInterval(Duration.ofSeconds(10)).rateWindow(Duration.ofSeconds(20));
    }

    @Test
    void unchokesTheTopKByDownloadRatePlusOneOptimistic() {
        ChokeScheduler c = builder(1).slots(2).build();
        Map<String, Long> bytes = Map.of("a", 100L, "b", 600L, "c", 300L, "d", 500L, "e", 200L, "f", 0L);
        bytes.forEach((peer, n) -> {
            c.peerConnected(peer);
            c.interested(peer, true);
            c.downloaded(peer, n);
        });
        ticker.advance(INTERVAL);
        Decisions d = c.tick();
        String optimistic = c.optimisticUnchoke();
        assertThat(optimistic).isIn("a", "c", "e", "f");
        assertThat(d.unchoke()).containsExactlyInAnyOrder("b", "d", optimistic);
        assertThat(d.choke()).isEmpty();
        assertThat(c.isChoking("b")).isFalse();
        assertThat(c.isChoking(optimistic.equals("a") ? "c" : "a")).isTrue();
    }

    @Test
    void neverUnchokesAnUninterestedPeer() {
        ChokeScheduler c = builder(1).slots(2).build();
        for (String peer : List.of("fast", "slow", "idle")) {
            c.peerConnected(peer);
        }
        c.downloaded("fast", 1_000_000);
        c.downloaded("slow", 10);
        c.interested("slow", true);
        ticker.advance(INTERVAL);
        Decisions d = c.tick();
        assertThat(d.unchoke()).containsExactly("slow");
        assertThat(c.optimisticUnchoke()).isNull();

        // slow loses interest: it is choked, and nobody is unchoked.
        c.interested("slow", false);
        ticker.advance(INTERVAL);
        assertThat(c.tick()).isEqualTo(new Decisions(List.of(), List.of("slow")));
        ticker.advance(INTERVAL);
        assertThat(c.tick().isEmpty()).isTrue();
    }

    @Test
    void rotatesTheOptimisticUnchokeEveryFewIntervals() {
        List<String> first = optimisticSequence(7);
        assertThat(optimisticSequence(7)).isEqualTo(first);
        for (int i = 0; i < first.size(); i++) {
            assertThat(first.get(i)).isNotNull().isNotEqualTo("a");
            if (i % 3 == 0) {
                if (i > 0) {
                    assertThat(first.get(i)).as("rotation at interval %d", i).isNotEqualTo(first.get(i - 1));
                }
            } else {
                assertThat(first.get(i)).as("interval %d", i).isEqualTo(first.get(i - 1));
            }
        }
        assertThat(new HashSet<>(first)).hasSizeGreaterThan(2);
    }

    private List<String> optimisticSequence(long seed) {
        FakeTicker t = new FakeTicker();
        ChokeScheduler c = ChokeScheduler.builder().ticker(t).random(new Random(seed)).slots(1).interval(INTERVAL)
                .optimisticEvery(3).minFlipInterval(INTERVAL).build();
        for (String peer : List.of("a", "b", "c", "d", "e")) {
            c.peerConnected(peer);
            c.interested(peer, true);
        }
        List<String> seq = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            c.downloaded("a", 1_000_000); // a stays the regular unchoke
            c.tick();
            seq.add(c.optimisticUnchoke());
            t.advance(INTERVAL);
        }
        return seq;
    }

    @Test
    void respectsTheMinimumIntervalBetweenFlips() {
        ChokeScheduler c = builder(3).slots(1).optimisticEvery(100).minFlipInterval(Duration.ofSeconds(25)).build();
        for (String peer : List.of("a", "b", "c")) {
            c.peerConnected(peer);
            c.interested(peer, true);
        }
        c.downloaded("a", 1000);
        ticker.advance(Duration.ofSeconds(1));
        Decisions d0 = c.tick(); // t = 1 s
        String optimistic = c.optimisticUnchoke();
        String other = optimistic.equals("b") ? "c" : "b";
        assertThat(d0.unchoke()).containsExactlyInAnyOrder("a", optimistic);

        ticker.advance(INTERVAL); // t = 11 s: other is now fastest, a should go but flipped 10 s ago
        c.downloaded(other, 1_000_000);
        assertThat(c.tick()).isEqualTo(new Decisions(List.of(other), List.of()));
        assertThat(c.isChoking("a")).isFalse();

        ticker.advance(INTERVAL); // t = 21 s: still too soon
        c.downloaded(other, 1_000_000);
        assertThat(c.tick().isEmpty()).isTrue();

        ticker.advance(INTERVAL); // t = 31 s: 30 s since a's flip
        c.downloaded(other, 1_000_000);
        assertThat(c.tick()).isEqualTo(new Decisions(List.of(), List.of("a")));
    }

    @Test
    void noConnectionFlipsTwiceWithinTheMinimumIntervalAndNoUninterestedPeerIsUnchoked() {
        Duration minFlip = Duration.ofSeconds(25);
        ChokeScheduler c = builder(11).slots(2).minFlipInterval(minFlip).build();
        List<String> peers = List.of("p0", "p1", "p2", "p3", "p4", "p5");
        Map<String, Boolean> interested = new HashMap<>();
        for (String p : peers) {
            c.peerConnected(p);
            interested.put(p, false);
        }
        Random random = new Random(5);
        Map<String, Long> lastFlip = new HashMap<>();
        int flips = 0;
        for (int round = 0; round < 300; round++) {
            for (String p : peers) {
                if (random.nextInt(4) == 0) {
                    boolean i = random.nextBoolean();
                    interested.put(p, i);
                    c.interested(p, i);
                }
                c.downloaded(p, random.nextInt(1_000_000));
            }
            Decisions d = c.tick();
            long now = ticker.read();
            for (String p : d.unchoke()) {
                assertThat(interested.get(p)).as("unchoked uninterested %s", p).isTrue();
            }
            List<String> flipped = new ArrayList<>(d.unchoke());
            flipped.addAll(d.choke());
            for (String p : flipped) {
                Long before = lastFlip.put(p, now);
                if (before != null) {
                    assertThat(now - before).isGreaterThanOrEqualTo(minFlip.toNanos());
                }
                flips++;
            }
            ticker.advance(INTERVAL);
        }
        assertThat(flips).isGreaterThan(50);
    }

    @Test
    void aSeedRanksPeersByUploadRate() {
        ChokeScheduler c = builder(1).slots(1).build();
        for (String peer : List.of("a", "b", "c")) {
            c.peerConnected(peer);
            c.interested(peer, true);
        }
        c.downloaded("a", 1_000_000);
        c.uploaded("b", 1_000_000);
        c.uploaded("c", 10);
        c.seeding(true);
        ticker.advance(INTERVAL);
        c.tick();
        assertThat(c.isChoking("b")).isFalse();
        assertThat(c.optimisticUnchoke()).isNotEqualTo("b");
        assertThat(c.rate("b")).isEqualTo(100_000.0);
    }

    @Test
    void tickDecidesOncePerInterval() {
        ChokeScheduler c = builder(1).slots(1).build();
        c.peerConnected("a");
        c.interested("a", true);
        assertThat(c.tick().unchoke()).containsExactly("a");
        c.peerConnected("b");
        c.interested("b", true);
        ticker.advance(Duration.ofSeconds(5));
        assertThat(c.tick()).isSameAs(Decisions.NONE);
        ticker.advance(Duration.ofSeconds(5));
        assertThat(c.tick().unchoke()).containsExactly("b");
        assertThat(c.interval()).isEqualTo(INTERVAL);
    }

    @Test
    void aPeerThatLeftIsForgotten() {
        ChokeScheduler c = builder(1).slots(1).build();
        c.peerConnected("a");
        c.interested("a", true);
        c.tick();
        assertThat(c.isChoking("a")).isFalse();
        c.peerLeft("a");
        c.downloaded("a", 100);
        c.interested("a", true);
        ticker.advance(INTERVAL);
        assertThat(c.tick().isEmpty()).isTrue();
        assertThat(c.isChoking("a")).isTrue();
        assertThat(c.rate("a")).isZero();
    }
}
