package io.s3broadcast.p2p.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.registry.NodeInfo;
import io.s3broadcast.testkit.time.ManualScheduler;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The overlay's arithmetic: peers still wanted, and how many of them a node dials itself, on fake time. */
class OverlayQuotaTest {

    private static final String SELF = "b";
    private static final Duration GRACE = Duration.ofSeconds(1);
    private static final int OVERLAY = 4;

    private final ManualScheduler time = new ManualScheduler();
    private final Map<String, Peer> peers = new TreeMap<>();
    private final AtomicBoolean complete = new AtomicBoolean();
    private final Membership membership = new Membership(time.ticker(), Duration.ofSeconds(5).toNanos(), OVERLAY,
            peers::size);
    private final OverlayQuota quota = new OverlayQuota(
            new Dialer.Shape(OVERLAY, 6, new Random(1), time.ticker(), GRACE.toNanos()), membership, peers,
            complete::get);

    private void members(int n) {
        for (int i = 0; i < n; i++) {
            membership.joined(new NodeInfo("m" + i, "127.0.0.1", 7000 + i), false);
        }
    }

    /** A peer this node dialled ({@code mine}) or that dialled it. */
    private Peer peer(boolean mine) {
        for (int i = 0; ; i++) {
            String id = "p" + i;
            if (!peers.containsKey(id) && DialPairs.dials(SELF, id) == mine) {
                Peer p = FakeLink.peer(id, 1);
                peers.put(id, p);
                return p;
            }
        }
    }

    @Test
    void aFullMeshPutsNoCapOnItsOwnDialsAndNeverInsists() {
        members(OVERLAY);
        assertThat(membership.bounded()).isFalse();
        assertThat(quota.outboundCap(SELF)).isEqualTo(Integer.MAX_VALUE);
        assertThat(quota.mayInsist(quota.outboundCap(SELF))).isFalse();
    }

    @Test
    void peersThatAreDoneCountOnlyOnceThisNodeIsComplete() {
        peer(true);
        peer(false).done = true;
        assertThat(quota.wanted(1)).as("one peer not done, one dial under way").isEqualTo(OVERLAY - 2);
        assertThat(quota.outbound(SELF, 1)).isEqualTo(2);

        complete.set(true);
        assertThat(quota.wanted(1)).isEqualTo(OVERLAY - 3);
        assertThat(quota.outbound(SELF, 0)).as("the done peer dialled this node").isEqualTo(1);
    }

    @Test
    void aBoundedOverlayDialsHalfUntilItHasBeenShortForTheGrace() {
        members(OVERLAY + 4);
        assertThat(membership.bounded()).isTrue();
        peer(true);
        assertThat(quota.outboundCap(SELF)).isEqualTo(OVERLAY / 2);

        time.advance(GRACE.minusMillis(1));
        assertThat(quota.outboundCap(SELF)).isEqualTo(OVERLAY / 2);
        assertThat(quota.mayInsist(OVERLAY / 2)).isFalse();

        time.advance(Duration.ofMillis(1));
        assertThat(quota.outboundCap(SELF)).as("short for the grace: the whole overlay").isEqualTo(OVERLAY);
        assertThat(quota.mayInsist(OVERLAY)).isTrue();
    }

    @Test
    void theGraceStartsAgainOnceTheOverlayWasFull() {
        members(OVERLAY + 4);
        for (int i = 0; i < OVERLAY; i++) {
            peer(i % 2 == 0);
        }
        time.advance(GRACE.multipliedBy(3));
        assertThat(quota.outboundCap(SELF)).as("full: half again").isEqualTo(OVERLAY / 2);

        peers.remove(peers.keySet().iterator().next());
        assertThat(quota.outboundCap(SELF)).isEqualTo(OVERLAY / 2);
        time.advance(GRACE);
        assertThat(quota.outboundCap(SELF)).isEqualTo(OVERLAY);
    }
}
