package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Whom a node takes as a peer: the accept bound, and in a bounded overlay the overlay's size for first dials. */
class AcceptBoundTest {

    private final ManualScheduler time = new ManualScheduler();
    private final AtomicBoolean bounded = new AtomicBoolean(true);
    private final AcceptBound bound = new AcceptBound(16, 20, bounded::get, time.ticker());

    @Test
    void aBoundedOverlayTakesAFirstDialOnlyBelowTheOverlaysSize() {
        assertThat(bound.accepts("a", 0, false)).isTrue();
        assertThat(bound.accepts("a", 15, false)).isTrue();
        assertThat(bound.accepts("b", 16, false)).isFalse();
        assertThat(bound.accepts("c", 19, false)).isFalse();
    }

    @Test
    void aMemberRefusedThatDialsAgainWithinTenSecondsIsTakenUpToTheAcceptBound() {
        assertThat(bound.accepts("a", 16, false)).isFalse();
        time.advance(Duration.ofMillis(Dialer.REFUSED_MILLIS - 1));
        assertThat(bound.accepts("a", 16, false)).as("it insists: short of peers, nobody else to dial").isTrue();
        assertThat(bound.accepts("b", 19, false)).isFalse();
        assertThat(bound.accepts("b", 19, false)).isTrue();
        assertThat(bound.accepts("c", 20, false)).isFalse();
        assertThat(bound.accepts("c", 20, false)).as("never beyond the accept bound").isFalse();
    }

    @Test
    void aRefusalIsForgottenAfterTenSecondsAndOnceTaken() {
        assertThat(bound.accepts("a", 16, false)).isFalse();
        time.advance(Duration.ofMillis(Dialer.REFUSED_MILLIS));
        assertThat(bound.accepts("a", 16, false)).as("a first dial again").isFalse();
        assertThat(bound.accepts("a", 16, false)).isTrue();
        assertThat(bound.accepts("a", 17, false)).as("taken once: the next dial is a first one").isFalse();
    }

    @Test
    void connectionsThisNodeDialledCountAgainstTheAcceptBoundOnly() {
        assertThat(bound.accepts("a", 16, true)).isTrue();
        assertThat(bound.accepts("a", 19, true)).isTrue();
        assertThat(bound.accepts("a", 20, true)).isFalse();
    }

    @Test
    void aFullMeshTakesEveryDialUpToTheAcceptBoundAsBefore() {
        bounded.set(false);
        assertThat(bound.accepts("a", 16, false)).isTrue();
        assertThat(bound.accepts("b", 19, false)).isTrue();
        assertThat(bound.accepts("c", 20, false)).isFalse();
    }

    @Test
    void anAcceptBoundBelowTheOverlayIsRefused() {
        assertThatThrownBy(() -> new AcceptBound(16, 15, bounded::get, time.ticker()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
