package io.s3broadcast.testkit.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RateDistributionTest {
  private static final int DRAWS = 20_000;

  private static long[] draws(RateDistribution d, long seed) {
    Random random = new Random(seed);
    long[] out = new long[DRAWS];
    for (int i = 0; i < DRAWS; i++) {
      out[i] = d.draw(random);
    }
    Arrays.sort(out);
    return out;
  }

  private static double share(long[] sorted, java.util.function.LongPredicate p) {
    return Arrays.stream(sorted).filter(p).count() / (double) sorted.length;
  }

  @Test
  void paperIsBimodalAsFigureOneShows() {
    long[] r = draws(RateDistribution.paper(), 7);
    // Fig. 1, 100 MB: about 60% at or below 6 MB/s, about 30% at 8 MB/s or more.
    assertThat(share(r, x -> x <= 6_000_000)).isBetween(0.55, 0.75);
    assertThat(share(r, x -> x >= 8_000_000)).isBetween(0.25, 0.35);
    // Fig. 3: the slowest near 4 MB/s, the fastest above 10 MB/s.
    assertThat(r[DRAWS / 20]).isBetween(2_500_000L, 4_500_000L);
    assertThat(r[DRAWS - DRAWS / 20]).isGreaterThan(10_000_000L);
    assertThat(RateDistribution.paper().mean()).isCloseTo(Arrays.stream(r).average().orElseThrow(), within(150_000.0));
  }

  @Test
  void lognormalHasItsMedianAndMean() {
    RateDistribution d = RateDistribution.lognormal(6_000_000, 0.4);
    long[] r = draws(d, 3);
    assertThat((double) r[DRAWS / 2]).isCloseTo(6_000_000, within(150_000.0));
    assertThat(Arrays.stream(r).average().orElseThrow()).isCloseTo(d.mean(), within(d.mean() * 0.02));
  }

  @Test
  void fixedAndEmpiricalDrawWhatTheySay() {
    assertThat(draws(RateDistribution.fixed(10_000_000), 1)).containsOnly(10_000_000L);
    long[] r = draws(RateDistribution.empirical(3_000_000, 9_000_000), 1);
    assertThat(r).containsOnly(3_000_000L, 9_000_000L);
    assertThat(share(r, x -> x == 3_000_000)).isCloseTo(0.5, within(0.02));
  }

  @Test
  void drawsAreReproducibleFromTheSeed() {
    assertThat(draws(RateDistribution.paper(), 5)).isEqualTo(draws(RateDistribution.paper(), 5));
  }

  @Test
  void specsParseAndPrintBack() {
    assertThat(RateDistribution.parse("paper").spec()).isEqualTo("paper");
    assertThat(RateDistribution.parse("fixed:10MB")).isEqualTo(RateDistribution.fixed(10_000_000));
    assertThat(RateDistribution.parse("fixed:2MiB/s")).isEqualTo(RateDistribution.fixed(2L << 20));
    assertThat(RateDistribution.parse("lognormal:6MB,0.4")).isEqualTo(RateDistribution.lognormal(6_000_000, 0.4));
    assertThat(RateDistribution.parse("bimodal:4.5MB,10MB,0.3"))
        .isEqualTo(RateDistribution.bimodal(4_500_000, 10_000_000, 0.3, 0.2));
    assertThat(RateDistribution.parse("empirical:3MB, 9MB")).isEqualTo(RateDistribution.empirical(3_000_000, 9_000_000));
    for (String spec : new String[] {"fixed:10MB", "lognormal:6MB,0.4", "bimodal:4.5MB,10MB,0.3,0.2", "empirical:3MB,9MB"}) {
      assertThat(RateDistribution.parse(spec).spec()).isEqualTo(spec);
    }
  }

  @Test
  void badSpecsSayWhatToWrite() {
    assertThatThrownBy(() -> RateDistribution.parse("gaussian:3MB"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown distribution 'gaussian'")
        .hasMessageContaining("lognormal:6MB,0.4");
    assertThatThrownBy(() -> RateDistribution.parse("fixed:10 parsecs")).hasMessageContaining("unknown unit");
    assertThatThrownBy(() -> RateDistribution.parse("lognormal:6MB")).hasMessageContaining("takes 2 arguments");
    assertThatThrownBy(() -> RateDistribution.parse("bimodal:1MB,2MB,1.5")).hasMessageContaining("[0, 1]");
    assertThatThrownBy(() -> RateDistribution.parse("fixed:10")).hasMessageContaining("at least 1000");
  }
}
