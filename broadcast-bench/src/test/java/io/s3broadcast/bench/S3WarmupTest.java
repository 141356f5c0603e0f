package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The ranges the fleet's S3 warm-up reads. */
class S3WarmupTest {

    @Test
    void readsTheRequestedNumberOfRangesInTurnOverTheObject() {
        List<long[]> ranges = S3Warmup.ranges(1000, 5, 300);
        assertThat(ranges).extracting(r -> r[0] + "-" + r[1])
                .containsExactly("0-299", "300-599", "600-899", "0-299", "300-599");
    }

    @Test
    void aSmallObjectIsReadWholeEachTime() {
        assertThat(S3Warmup.ranges(100, 3, 256 * 1024)).extracting(r -> r[0] + "-" + r[1])
                .containsExactly("0-99", "0-99", "0-99");
    }

    @Test
    void anEmptyObjectHasNothingToRead() {
        assertThat(S3Warmup.ranges(0, 3, 1024)).isEmpty();
    }

    @Test
    void everyRangeIsWithinTheObject() {
        long size = 64L * 1024 * 1024 + 12345;
        assertThat(S3Warmup.ranges(size, S3Warmup.REQUESTS, S3Warmup.RANGE))
                .hasSize(S3Warmup.REQUESTS)
                .allSatisfy(r -> assertThat(r[1]).isLessThan(size).isGreaterThanOrEqualTo(r[0]));
    }
}
