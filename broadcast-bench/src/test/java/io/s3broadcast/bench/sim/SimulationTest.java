package io.s3broadcast.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.s3broadcast.Strategy;
import io.s3broadcast.testkit.proxy.RateDistribution;
import io.s3broadcast.testkit.proxy.S3Profile;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SimulationTest {

    private static final long MB = 1_000_000;
    private static final long SIZE = 64L << 20;

    private static long[] rates(int n, long rate) {
        long[] r = new long[n];
        Arrays.fill(r, rate);
        return r;
    }

    @Test
    void aSingleNodeFlatFetchTakesTheAnalyticTime() {
        // One node, a 10 MB/s link, S3 at a fixed 4 MB/s per GET and no latency: the work sizing gives 16
        // connections (64 ranges of 1 MiB), together capped by the link, so the object takes S / 10 MB/s.
        S3Profile s3 = new S3Profile("fixed", RateDistribution.fixed(4 * MB), S3Profile.Latency.NONE, 0, 0);
        SimResult r = new Simulation(SimConfig.defaults(Strategy.FLAT_TREE, SIZE, rates(1, 10 * MB),
                rates(1, 10 * MB), s3, 1, 0)).run();
        assertThat(r.completed()).isTrue();
        assertThat(r.s3Connections()).isEqualTo(16);
        assertThat(r.slowest()).isCloseTo(SIZE / 10e6, within(0.01));
        assertThat(r.s3BytesOverS()).isEqualTo(1.0);
    }

    @Test
    void aNodeWhoseLinkBindsFromTheStartHasNoIdleTime() {
        S3Profile s3 = new S3Profile("fixed", RateDistribution.fixed(4 * MB), S3Profile.Latency.NONE, 0, 0);
        SimResult r = new Simulation(SimConfig.defaults(Strategy.FLAT_TREE, SIZE, rates(1, 10 * MB),
                rates(1, 10 * MB), s3, 1, 0)).run();
        SimResult.Idle idle = r.idle();
        assertThat(idle.totalMean()).isCloseTo(0, within(0.01));
        assertThat(idle.headMean() + idle.middleMean() + idle.tailMean()).isCloseTo(idle.totalMean(), within(0.002));
        assertThat(idle.duplicatesOverS()).isZero();
    }

    @Test
    void idleTimeIsWhatTheLinkLeftUnusedBeforeTheLastPiece() {
        S3Profile s3 = new S3Profile("fixed", RateDistribution.fixed(MB), S3Profile.Latency.NONE, 0, 0);
        SimResult r = new Simulation(SimConfig.defaults(Strategy.FLAT_TREE, SIZE, rates(1, 100 * MB),
                rates(1, 100 * MB), s3, 1, 0)).run();
        // 16 GETs at 1 MB/s under a 100 MB/s link: the link is 84% idle the whole time.
        assertThat(r.idle().totalMean()).isCloseTo(r.slowest() * 0.84, within(0.05));
    }

    @Test
    void aSlowS3DrawBindsWhenTheLinkIsFast() {
        // Two connections' worth of share at 1 MB/s each would be slow; with 16 connections at 1 MB/s the node
        // reads at 16 MB/s under a 100 MB/s link.
        S3Profile s3 = new S3Profile("fixed", RateDistribution.fixed(MB), S3Profile.Latency.NONE, 0, 0);
        SimResult r = new Simulation(SimConfig.defaults(Strategy.FLAT_TREE, SIZE, rates(1, 100 * MB),
                rates(1, 100 * MB), s3, 1, 0)).run();
        assertThat(r.slowest()).isCloseTo(SIZE / 16e6, within(0.01));
    }

    @Test
    void everyStrategyCompletesAndTheCooperativeOnesReadTheObjectOnce() {
        for (Strategy s : Strategy.values()) {
            SimResult r = new Simulation(SimConfig.defaults(s, SIZE, rates(8, 10 * MB), rates(8, 10 * MB),
                    S3Profile.paper(), 7, 0)).run();
            assertThat(r.completed()).as(s.toString()).isTrue();
            assertThat(r.slowest()).as(s.toString()).isGreaterThanOrEqualTo(SIZE / 10e6);
            if (s == Strategy.FLAT_TREE) {
                assertThat(r.s3BytesOverS()).isEqualTo(8.0);
                assertThat(r.connectionsMax()).isZero();
            } else {
                assertThat(r.s3BytesOverS()).as(s.toString()).isEqualTo(1.0);
                assertThat(r.connectionsMax()).isEqualTo(7);
                assertThat(r.messagesPerNode()).isPositive();
            }
        }
    }

    @Test
    void theSameSeedGivesTheSameRunAndAnotherSeedAnotherOne() {
        SimConfig c = SimConfig.defaults(Strategy.STEAL, SIZE, rates(6, 10 * MB), rates(6, 10 * MB),
                S3Profile.paper(), 11, 0);
        SimResult a = new Simulation(c).run();
        SimResult b = new Simulation(c).run();
        SimResult other = new Simulation(c.withSeed(12)).run();
        assertThat(b.completions()).isEqualTo(a.completions());
        assertThat(b.events()).isEqualTo(a.events());
        assertThat(b.messagesPerNode()).isEqualTo(a.messagesPerNode());
        assertThat(other.completions()).isNotEqualTo(a.completions());
    }

    @Test
    void aBoundedOverlayKeepsConnectionsWithinItsBound() {
        SimConfig c = SimConfig.defaults(Strategy.STEAL, 16L << 20, rates(200, 10 * MB), rates(200, 10 * MB),
                S3Profile.paper(), 3, 8);
        // The engine's dialler: at most the accept bound, 8 + max(2, 8 / 4) = 10.
        SimResult r = new Simulation(c).run();
        assertThat(r.completed()).isTrue();
        assertThat(r.overlayConnected()).isTrue();
        assertThat(r.connectionsMax()).isLessThanOrEqualTo(10);
        assertThat(r.connectionsMean()).isGreaterThan(7.5);
        assertThat(r.s3BytesOverS()).isEqualTo(1.0);
        // The random overlay: at most 8.
        SimResult random = new Simulation(c.withOverlay(new SimConfig.OverlayShape(false, 0,
                java.time.Duration.ofSeconds(5)))).run();
        assertThat(random.completed()).isTrue();
        assertThat(random.connectionsMax()).isLessThanOrEqualTo(8);
    }

    @Test
    void theDialledOverlaySpreadsPeersFromAboutHalfToTheAcceptBoundAndTheRefillLiftsTheShort() {
        Overlay o = Overlay.dialled(1000, 16, 20, 42);
        int[] d = o.degrees();
        // Each node dials 8 and is dialled about 8 times: degrees from about 8 to 20, mean about 16.
        assertThat(d.length - 1).isEqualTo(20);
        assertThat(o.meanDegree()).isBetween(15.0, 16.0);
        int below16 = 0;
        for (int i = 0; i < 16; i++) {
            below16 += d[i];
        }
        assertThat(below16).isGreaterThan(200);
        o.fill(16, 20, 20, new java.util.Random(1));
        int[] after = o.degrees();
        int stillShort = 0;
        for (int i = 0; i < Math.min(16, after.length); i++) {
            stillShort += after[i];
        }
        assertThat(stillShort).isLessThan(5);
        assertThat(o.maxDegree()).isEqualTo(20);
    }

    @Test
    void withFirstDialsTakenOnlyBelowTheOverlaysSizeTheDegreesStayAtItAndTheShortInsist() {
        // Connections since session 23: a first dial only below 16 peers; a node out of members dials those that
        // refused it again, and they take it up to the accept bound (20).
        Overlay o = Overlay.dialled(1000, 16, 16, 42);
        assertThat(o.maxDegree()).isEqualTo(16);
        o.fill(16, 16, 20, new java.util.Random(1));
        int[] d = o.degrees();
        assertThat(d.length).as("nobody short, at most a few above 16").isBetween(17, 18);
        for (int i = 0; i < 16; i++) {
            assertThat(d[i]).isZero();
        }
        assertThat(d[16]).isGreaterThan(990);
        assertThat(o.connected()).isTrue();
    }

    @Test
    void aSharedHostSlowsTheBroadcastOnlyWhenItsCoresBind() {
        SimConfig c = SimConfig.defaults(Strategy.NON_STEAL, SIZE, rates(8, 10 * MB), rates(8, 10 * MB),
                S3Profile.paper(), 7, 0);
        SimResult own = new Simulation(c).run();
        SimResult plenty = new Simulation(c.withHostCpu(HostCpu.measured(64))).run();
        SimResult two = new Simulation(c.withHostCpu(HostCpu.measured(2))).run();
        assertThat(own.cpu()).isNull();
        // 64 cores: the starts take their 0.5 CPU-s on a core each, as if each node had its own; nothing else moves.
        assertThat(plenty.cpu().startSeconds()).isEqualTo(0.5);
        assertThat(plenty.completions()).isEqualTo(new Simulation(c.withOverheads(java.time.Duration.ofMillis(500),
                c.afterLastPiece(), c.spotCheck(), c.peerEfficiency())).run().completions());
        // 2 cores: 8 starts end at 2 s, and eight nodes moving 10 MB/s each need more than 2 cores.
        assertThat(two.cpu().startSeconds()).isEqualTo(2.0);
        // After the starts, the transfer itself takes longer too.
        assertThat(two.slowest() - 2.0).isGreaterThan(plenty.slowest() - 0.5 + 0.1);
        assertThat(two.cpu().hostBusy()).isGreaterThan(plenty.cpu().hostBusy() * 10);
        // The same bytes cost the same CPU however long they took.
        assertThat(two.cpu().perNodeMean()).isCloseTo(plenty.cpu().perNodeMean(), within(0.05));
    }
}
