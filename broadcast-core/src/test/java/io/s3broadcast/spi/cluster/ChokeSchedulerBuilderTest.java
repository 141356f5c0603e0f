package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChokeSchedulerBuilderTest {

    private final FakeTicker ticker = new FakeTicker();

    private ChokeSchedulerBuilder builder() {
        return ChokeScheduler.builder().ticker(ticker).random(new Random(1)).interval(Duration.ofSeconds(10))
                .minFlipInterval(Duration.ofSeconds(10)).rateWindow(Duration.ofSeconds(20));
    }

    private static List<String> interested(ChokeScheduler c, int n) {
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String peer = "p" + (char) ('a' + i);
            peers.add(peer);
            c.peerConnected(peer);
            c.interested(peer, true);
        }
        return peers;
    }

    @Test
    void defaultsAreBitTorrents() {
        ChokeScheduler c = ChokeScheduler.builder().ticker(ticker).random(new Random(1)).build();
        assertThat(c.interval()).isEqualTo(Duration.ofSeconds(10));
        interested(c, 8);
        assertThat(c.rechoke().unchoke()).hasSize(4 + 1); // tit-for-tat: 4 slots and an optimistic unchoke
    }

    @Test
    void cooperativeUnchokesEveryInterestedPeerUpToSlotsPlusOne() {
        ChokeScheduler c = builder().policy("cooperative").slots(3).build();
        interested(c, 6);
        assertThat(c.rechoke().unchoke()).hasSize(4);
    }

    @Test
    void cooperativeUnchokesAtMostEightPeersPerPieceHeld() {
        int[] held = {1};
        ChokeScheduler c = builder().policy(ChokePolicy.Kind.COOPERATIVE).slots(15).piecesHeld(() -> held[0])
                .build();
        List<String> peers = interested(c, 12);
        assertThat(c.rechoke().unchoke()).hasSize(PiecesHeldCap.UNCHOKED_PER_PIECE);
        // A second piece: room for every interested peer, the others are unchoked at once.
        held[0] = 2;
        assertThat(c.rechoke().unchoke()).hasSize(12 - PiecesHeldCap.UNCHOKED_PER_PIECE);
        assertThat(peers).noneMatch(c::isChoking);
    }

    @Test
    void titForTatIgnoresPiecesHeld() {
        ChokeScheduler c = builder().slots(2).piecesHeld(() -> 0).build();
        interested(c, 4);
        assertThat(c.rechoke().unchoke()).hasSize(3);
    }

    @Test
    void theOptimisticUnchokeIsDrawnAgainEveryOptimisticEveryIntervals() {
        ChokeScheduler c = builder().slots(0).optimisticEvery(2).build();
        interested(c, 6);
        c.tick();
        String first = c.optimisticUnchoke();
        ticker.advance(Duration.ofSeconds(10));
        c.tick();
        assertThat(c.optimisticUnchoke()).isEqualTo(first); // one interval: kept
        ticker.advance(Duration.ofSeconds(10));
        c.tick();
        assertThat(c.optimisticUnchoke()).isNotEqualTo(first); // two: drawn again, among the choked peers
        assertThat(c.isChoking(first)).isTrue();
    }

    @Test
    void rejectsSettingsOutOfRange() {
        ChokeSchedulerBuilder b = ChokeScheduler.builder();
        assertThatThrownBy(() -> b.slots(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.interval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.rateWindow(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.optimisticEvery(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.minFlipInterval(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.policy("fair")).hasMessageContaining("cooperative or tit-for-tat");
        assertThat(b.minFlipInterval(Duration.ZERO).build()).isNotNull();
    }
}
