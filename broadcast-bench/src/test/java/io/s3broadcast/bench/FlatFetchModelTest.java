package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.s3broadcast.testkit.proxy.S3Profile;
import org.junit.jupiter.api.Test;

class FlatFetchModelTest {

    @Test
    void fixedRatesUnderTheLinkTakeRangesOverConnections() {
        // 8 ranges of 10 MB at 2 MB/s on 4 connections: two rounds of 5 s; the 10 MB/s link is not reached (8 MB/s)
        double[] t = FlatFetchModel.simulate(S3Profile.parse("fixed:2MB"), 80_000_000, 10_000_000, 4, 10_000_000, 5, 1);
        assertThat(t[0]).isCloseTo(10.0, within(1e-6));
    }

    @Test
    void theLinkSharesItsRateAmongConnections() {
        double[] t = FlatFetchModel.simulate(S3Profile.parse("fixed:5MB"), 80_000_000, 10_000_000, 4, 10_000_000, 5, 1);
        assertThat(t[0]).isCloseTo(8.0, within(1e-6)); // 20 MB/s asked, 10 MB/s link
    }

    @Test
    void latencyAddsToEachRange() {
        double[] t = FlatFetchModel.simulate(S3Profile.parse("fixed:5MB;latency=100ms"), 10_000_000, 10_000_000, 1, 0, 3, 1);
        assertThat(t[0]).isCloseTo(2.1, within(1e-6));
    }
}
