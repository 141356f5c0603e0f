package io.s3broadcast.spi.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.spi.cluster.ChokeScheduler.Decisions;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Choking rounds under both policies, on the manual scheduler's fake time. */
class ChokePolicyTest {

    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final List<String> SIX = List.of("a", "b", "c", "d", "e", "f");

    private final ManualScheduler time = new ManualScheduler();

    private ChokeScheduler scheduler(ChokePolicy.Kind policy, int slots, long seed) {
        return ChokeScheduler.builder().ticker(time.ticker()).random(new Random(seed)).policy(policy).slots(slots)
                .interval(INTERVAL).minFlipInterval(INTERVAL).rateWindow(INTERVAL.multipliedBy(2)).build();
    }

    private static void allInterested(ChokeScheduler c, List<String> peers) {
        for (String p : peers) {
            c.peerConnected(p);
            c.interested(p, true);
        }
    }

    @Test
    void bothPoliciesInOneRoundTitForTatServesSlotsPlusOneCooperativeServesEveryInterestedPeer() {
        ChokeScheduler tft = scheduler(ChokePolicy.Kind.TIT_FOR_TAT, 2, 1);
        ChokeScheduler coop = scheduler(ChokePolicy.Kind.COOPERATIVE, 15, 1);
        allInterested(tft, SIX);
        allInterested(coop, SIX);
        time.advance(INTERVAL);
        assertThat(tft.tick().unchoke()).hasSize(3);
        Decisions d = coop.tick();
        assertThat(d.unchoke()).containsExactlyElementsOf(SIX);
        assertThat(d.choke()).isEmpty();
    }

    @Test
    void cooperativeWhenCappedPrefersPeersThatUploadToUsThenFewestPiecesAndKeepsAnOptimisticSlot() {
        ChokeScheduler c = scheduler(ChokePolicy.Kind.COOPERATIVE, 3, 7); // cap 4: 3 regular + 1 optimistic
        allInterested(c, SIX);
        c.downloaded("f", 5_000_000); // f uploads to us: first
        c.peerPieces("a", 50);
        c.peerPieces("b", 2);
        c.peerPieces("c", 40);
        c.peerPieces("d", 1);
        c.peerPieces("e", 30);
        time.advance(INTERVAL);
        Decisions d = c.tick();
        String optimistic = c.optimisticUnchoke();
        assertThat(optimistic).isIn("a", "c", "e");
        assertThat(d.unchoke()).containsExactlyInAnyOrder("f", "d", "b", optimistic);
        assertThat(d.unchoke()).hasSize(4);
    }

    @Test
    void optimisticSlotRotatesEveryThirdRoundAndReachesEveryPeerOutsideTheRegularSlots() {
        ChokeScheduler c = scheduler(ChokePolicy.Kind.COOPERATIVE, 2, 3); // cap 3: 2 regular + 1 optimistic
        allInterested(c, SIX);
        c.downloaded("a", 2_000_000);
        c.downloaded("b", 1_000_000);
        Set<String> drawn = new HashSet<>();
        String previous = null;
        int changes = 0;
        for (int round = 0; round < 60; round++) {
            time.advance(INTERVAL);
            c.downloaded("a", 2_000_000);
            c.downloaded("b", 1_000_000);
            c.tick();
            assertThat(c.isChoking("a")).isFalse();
            assertThat(c.isChoking("b")).isFalse();
            String o = c.optimisticUnchoke();
            assertThat(o).isIn("c", "d", "e", "f");
            drawn.add(o);
            if (previous != null && !o.equals(previous)) {
                changes++;
                assertThat(round % 3).as("drawn again only every optimisticEvery (3) rounds").isZero();
            }
            previous = o;
        }
        assertThat(drawn).containsExactlyInAnyOrder("c", "d", "e", "f");
        assertThat(changes).isPositive();
    }

    @Test
    void cooperativeKeepsAnUnchokedPeerThatLostInterestSoItCanAskAgainAtOnceTitForTatChokesIt() {
        for (ChokePolicy.Kind kind : ChokePolicy.Kind.values()) {
            ChokeScheduler c = scheduler(kind, 4, 1);
            allInterested(c, List.of("a", "b"));
            time.advance(INTERVAL);
            assertThat(c.tick().unchoke()).containsExactly("a", "b");
            c.interested("a", false); // a holds every piece we have...
            time.advance(INTERVAL);
            Decisions d = c.tick();
            c.interested("a", true); // ...until we store one more
            Decisions again = c.rechoke();
            if (kind == ChokePolicy.Kind.COOPERATIVE) {
                assertThat(d.isEmpty()).isTrue();
                assertThat(again.isEmpty()).isTrue();
                assertThat(c.isChoking("a")).isFalse();
            } else {
                assertThat(d.choke()).containsExactly("a");
                assertThat(again.isEmpty()).as("no second flip within the minimum flip interval").isTrue();
                assertThat(c.isChoking("a")).isTrue();
            }
        }
    }

    @Test
    void cooperativeChokesAnIdlePeerWhenItsSlotIsWanted() {
        ChokeScheduler c = scheduler(ChokePolicy.Kind.COOPERATIVE, 1, 1); // cap 2
        allInterested(c, List.of("a", "b"));
        time.advance(INTERVAL);
        assertThat(c.tick().unchoke()).containsExactly("a", "b");
        c.interested("a", false);
        c.peerConnected("c");
        c.interested("c", true);
        time.advance(INTERVAL);
        Decisions d = c.tick();
        assertThat(d.unchoke()).containsExactly("c");
        assertThat(d.choke()).containsExactly("a");
    }

    @Test
    void policyNamesParse() {
        assertThat(ChokePolicy.Kind.parse("cooperative")).isEqualTo(ChokePolicy.Kind.COOPERATIVE);
        assertThat(ChokePolicy.Kind.parse(" Tit-For-Tat ")).isEqualTo(ChokePolicy.Kind.TIT_FOR_TAT);
        assertThat(ChokePolicy.Kind.parse("tit_for_tat")).isEqualTo(ChokePolicy.Kind.TIT_FOR_TAT);
        assertThat(ChokePolicy.Kind.parse("titfortat")).isEqualTo(ChokePolicy.Kind.TIT_FOR_TAT);
        assertThat(ChokePolicy.Kind.TIT_FOR_TAT.toString()).isEqualTo("tit-for-tat");
        assertThatThrownBy(() -> ChokePolicy.Kind.parse("fair")).hasMessageContaining("cooperative or tit-for-tat");
    }
}
