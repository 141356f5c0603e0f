package io.s3broadcast.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FluidNetworkTest {

    private static final long MB = 1_000_000;

    /** Records when each piece arrived, in seconds. */
    private static final class Arrivals implements FluidNetwork.Listener {
        final EventQueue q;
        final List<double[]> at = new ArrayList<>();
        int drained;

        Arrivals(EventQueue q) {
            this.q = q;
        }

        @Override
        public void delivered(FluidNetwork.Flow flow, int piece, long bytes) {
            at.add(new double[] {piece, q.now() / 1e9});
        }

        @Override
        public void drained(FluidNetwork.Flow flow) {
            drained++;
        }
    }

    @Test
    void twoFlowsIntoOneLinkGetHalfEach() {
        EventQueue q = new EventQueue();
        // node 0 receives from nodes 1 and 2; 0's download (10 MB/s) is the bottleneck.
        FluidNetwork net = new FluidNetwork(q, new long[] {10 * MB, 100 * MB, 100 * MB},
                new long[] {10 * MB, 100 * MB, 100 * MB}, 0, 0);
        Arrivals a = new Arrivals(q);
        Arrivals b = new Arrivals(q);
        FluidNetwork.Flow fa = net.openPeer(1, 0, a);
        FluidNetwork.Flow fb = net.openPeer(2, 0, b);
        net.enqueue(fa, 0, 10 * MB);
        net.enqueue(fb, 1, 10 * MB);
        q.run(() -> false, Long.MAX_VALUE);
        // 5 MB/s each: both arrive after 2 s.
        assertThat(a.at.get(0)[1]).isCloseTo(2.0, within(1e-6));
        assertThat(b.at.get(0)[1]).isCloseTo(2.0, within(1e-6));
        assertThat(a.drained).isEqualTo(1);
    }

    @Test
    void whatAFlowHeldElsewhereLeavesGoesToTheOthers() {
        EventQueue q = new EventQueue();
        // node 0 downloads at 10 MB/s from node 1 (upload 2 MB/s) and from S3 (uncapped): max-min gives 2 and 8.
        FluidNetwork net = new FluidNetwork(q, new long[] {10 * MB, 100 * MB}, new long[] {10 * MB, 2 * MB}, 0, 0);
        Arrivals peer = new Arrivals(q);
        Arrivals s3 = new Arrivals(q);
        FluidNetwork.Flow fp = net.openPeer(1, 0, peer);
        FluidNetwork.Flow fs = net.openS3(0, 0, s3);
        net.enqueue(fp, 0, 4 * MB);
        net.enqueue(fs, 1, 16 * MB);
        q.run(() -> false, Long.MAX_VALUE);
        assertThat(peer.at.get(0)[1]).isCloseTo(2.0, within(1e-6));
        assertThat(s3.at.get(0)[1]).isCloseTo(2.0, within(1e-6));
        assertThat(fs.rate()).isZero();
    }

    @Test
    void whenOneFlowEndsTheOtherSpeedsUp() {
        EventQueue q = new EventQueue();
        FluidNetwork net = new FluidNetwork(q, new long[] {10 * MB, 0, 0}, new long[] {0, 0, 0}, 0, 0);
        Arrivals a = new Arrivals(q);
        Arrivals b = new Arrivals(q);
        FluidNetwork.Flow fa = net.openPeer(1, 0, a);
        FluidNetwork.Flow fb = net.openPeer(2, 0, b);
        net.enqueue(fa, 0, 5 * MB);
        net.enqueue(fb, 1, 15 * MB);
        q.run(() -> false, Long.MAX_VALUE);
        // Both at 5 MB/s until a ends at 1 s; b has 10 MB left at 10 MB/s: ends at 2 s.
        assertThat(a.at.get(0)[1]).isCloseTo(1.0, within(1e-6));
        assertThat(b.at.get(0)[1]).isCloseTo(2.0, within(1e-6));
    }

    @Test
    void anS3FlowKeepsToTheRateItDrewAndTheAggregateCapIsShared() {
        EventQueue q = new EventQueue();
        // Two nodes with fast links, S3 capped at 6 MB/s in all; node 0's GET drew 2 MB/s.
        FluidNetwork net = new FluidNetwork(q, new long[] {100 * MB, 100 * MB}, new long[] {0, 0}, 6 * MB, 0);
        Arrivals a = new Arrivals(q);
        Arrivals b = new Arrivals(q);
        net.enqueue(net.openS3(0, 2 * MB, a), 0, 2 * MB);
        net.enqueue(net.openS3(1, 0, b), 1, 4 * MB);
        q.run(() -> false, Long.MAX_VALUE);
        assertThat(a.at.get(0)[1]).isCloseTo(1.0, within(1e-6));
        assertThat(b.at.get(0)[1]).isCloseTo(1.0, within(1e-6));
    }

    @Test
    void itemsOnAFlowArriveBackToBackAndAnUnstartedOneCanBeCancelled() {
        EventQueue q = new EventQueue();
        FluidNetwork net = new FluidNetwork(q, new long[] {1 * MB, 0}, new long[] {0, 0}, 0, 0);
        Arrivals a = new Arrivals(q);
        FluidNetwork.Flow f = net.openPeer(1, 0, a);
        net.enqueue(f, 0, MB);
        net.enqueue(f, 1, MB);
        net.enqueue(f, 2, MB);
        assertThat(net.cancel(f, 1)).isTrue();
        q.run(() -> false, Long.MAX_VALUE);
        assertThat(a.at).hasSize(2);
        assertThat(a.at.get(0)).containsExactly(0, 1.0);
        assertThat(a.at.get(1)[0]).isEqualTo(2);
        assertThat(a.at.get(1)[1]).isCloseTo(2.0, within(1e-6));
    }

    @Test
    void aHeadItemPartWaySentIsNotCancelled() {
        EventQueue q = new EventQueue();
        FluidNetwork net = new FluidNetwork(q, new long[] {1 * MB, 0}, new long[] {0, 0}, 0, 0);
        Arrivals a = new Arrivals(q);
        FluidNetwork.Flow f = net.openPeer(1, 0, a);
        net.enqueue(f, 0, MB);
        boolean[] cancelled = {true};
        // Half of piece 0 is over the link at 0.5 s: too late to cancel it.
        q.at(500_000_000L, () -> cancelled[0] = net.cancel(f, 0));
        q.run(() -> false, Long.MAX_VALUE);
        assertThat(cancelled[0]).isFalse();
        assertThat(a.at).hasSize(1);
        assertThat(a.at.get(0)).containsExactly(0, 1.0);
    }

    @Test
    void aRecomputationStepDelaysRatesByAtMostOneStep() {
        EventQueue q = new EventQueue();
        FluidNetwork net = new FluidNetwork(q, new long[] {10 * MB, 0}, new long[] {0, 0}, 0, 1_000_000);
        Arrivals a = new Arrivals(q);
        q.at(500_000, () -> net.enqueue(net.openPeer(1, 0, a), 0, 10 * MB));
        q.run(() -> false, Long.MAX_VALUE);
        // Starts at 0.5 ms, rated at the 1 ms step: arrives 1 s after that.
        assertThat(a.at.get(0)[1]).isCloseTo(1.001, within(1e-6));
    }

    @Test
    void aHostCpuThatBindsSlowsEveryFlowAlikeAndCountsTheCpuUsed() {
        EventQueue q = new EventQueue();
        // Two S3 flows into fast links; the host has 1 core and a byte costs 0.1 us on one flow and 0.3 us on the
        // other: 1 = r * (0.1 + 0.3) us gives both 2.5 MB/s (max-min fair in bytes), using 0.25 and 0.75 cores.
        FluidNetwork net = new FluidNetwork(q, new long[] {100 * MB, 100 * MB}, new long[] {0, 0}, 0, 0, true, 1.0);
        Arrivals a = new Arrivals(q);
        Arrivals b = new Arrivals(q);
        FluidNetwork.Flow fa = net.openS3(0, 0, 0.1e-6, a);
        FluidNetwork.Flow fb = net.openS3(1, 0, 0.3e-6, b);
        net.enqueue(fa, 0, 5 * MB);
        net.enqueue(fb, 1, 10 * MB);
        q.run(() -> false, Long.MAX_VALUE);
        // Both at 2.5 MB/s until a ends at 2 s; then b alone: 1 / 0.3 us = 3.33 MB/s for its last 5 MB, 1.5 s.
        assertThat(a.at.get(0)[1]).isCloseTo(2.0, within(1e-6));
        assertThat(b.at.get(0)[1]).isCloseTo(3.5, within(1e-6));
        // 5 MB at 0.1 us and 10 MB at 0.3 us.
        assertThat(net.hostCpuSeconds()).isCloseTo(3.5, within(1e-6));
    }

    @Test
    void aHostCpuWithCoresToSpareChangesNothingAndWithoutOneFlowsCostNothing() {
        EventQueue q = new EventQueue();
        // 10 MB/s at 0.1 us a byte is 1 core of the 4: the link binds.
        FluidNetwork net = new FluidNetwork(q, new long[] {10 * MB, 0}, new long[] {0, 0}, 0, 0, true, 4.0);
        Arrivals a = new Arrivals(q);
        net.enqueue(net.openPeer(1, 0, 0.1e-6, a), 0, 10 * MB);
        q.run(() -> false, Long.MAX_VALUE);
        assertThat(a.at.get(0)[1]).isCloseTo(1.0, within(1e-6));
        assertThat(net.hostCpuSeconds()).isCloseTo(1.0, within(1e-6));

        EventQueue q2 = new EventQueue();
        FluidNetwork own = new FluidNetwork(q2, new long[] {10 * MB, 0}, new long[] {0, 0}, 0, 0);
        FluidNetwork.Flow f = own.openPeer(1, 0, 1e-3, new Arrivals(q2));
        assertThat(f.cpuPerByte()).isZero();
        own.enqueue(f, 0, 10 * MB);
        q2.run(() -> false, Long.MAX_VALUE);
        assertThat(own.hostCpuSeconds()).isZero();
    }

    @Test
    void aFlowHeldByItsLinkLeavesTheHostCpuToTheOthers() {
        EventQueue q = new EventQueue();
        // 1 core at 0.1 us a byte carries 10 MB/s; node 0's link holds its flow to 2 MB/s, node 1's gets the other 8.
        FluidNetwork net = new FluidNetwork(q, new long[] {2 * MB, 100 * MB}, new long[] {0, 0}, 0, 0, true, 1.0);
        Arrivals a = new Arrivals(q);
        Arrivals b = new Arrivals(q);
        net.enqueue(net.openS3(0, 0, 0.1e-6, a), 0, 2 * MB);
        net.enqueue(net.openS3(1, 0, 0.1e-6, b), 1, 8 * MB);
        q.run(() -> false, Long.MAX_VALUE);
        assertThat(a.at.get(0)[1]).isCloseTo(1.0, within(1e-6));
        assertThat(b.at.get(0)[1]).isCloseTo(1.0, within(1e-6));
    }
}
