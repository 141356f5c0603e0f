package io.s3broadcast.testkit.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class S3ProfileTest {
  @Test
  void paperHasPerRequestRatesAndLatencyAndNoCaps() {
    S3Profile p = S3Profile.parse("paper");
    assertThat(p.rates().spec()).isEqualTo("paper");
    assertThat(p.firstByte()).isEqualTo(S3Profile.Latency.lognormal(30_000_000, 0.5));
    assertThat(p.perConnectionCap()).isZero();
    assertThat(p.aggregateCap()).isZero();
  }

  @Test
  void settingsOverrideTheBase() {
    S3Profile p = S3Profile.parse("lognormal:6MB,0.4;latency=lognormal:20ms,0.3;connection=20MB;aggregate=100MB");
    assertThat(p.rates()).isEqualTo(RateDistribution.lognormal(6_000_000, 0.4));
    assertThat(p.firstByte()).isEqualTo(S3Profile.Latency.lognormal(20_000_000, 0.3));
    assertThat(p.perConnectionCap()).isEqualTo(20_000_000);
    assertThat(p.aggregateCap()).isEqualTo(100_000_000);
    assertThat(p.name()).isEqualTo("lognormal:6MB,0.4;latency=lognormal:20ms,0.3;connection=20MB;aggregate=100MB");
    assertThat(S3Profile.parse("paper;aggregate=40MB").aggregateCap()).isEqualTo(40_000_000);
    assertThat(S3Profile.parse("fixed:10MB;latency=0").firstByte().draw(new Random(1))).isZero();
    assertThat(S3Profile.parse("unlimited").rates()).isNull();
  }

  @Test
  void meanRequestRateIsBoundedByTheConnectionCap() {
    assertThat(S3Profile.parse("fixed:10MB").meanRequestRate()).isEqualTo(10_000_000.0);
    assertThat(S3Profile.parse("fixed:10MB;connection=4MB").meanRequestRate()).isEqualTo(4_000_000.0);
    assertThat(S3Profile.parse("unlimited;connection=4MB").meanRequestRate()).isEqualTo(4_000_000.0);
    assertThat(S3Profile.unlimited().meanRequestRate()).isZero();
  }

  @Test
  void latencyDrawsAroundItsMedian() {
    S3Profile.Latency l = S3Profile.Latency.parse("lognormal:30ms,0.5");
    Random random = new Random(2);
    double sum = 0;
    for (int i = 0; i < 20_000; i++) {
      sum += l.draw(random);
    }
    assertThat(sum / 20_000).isCloseTo(l.mean(), within(l.mean() * 0.03));
    assertThat(S3Profile.Latency.parse("15ms").draw(random)).isEqualTo(15_000_000);
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> S3Profile.parse("paper;burst=3")).hasMessageContaining("unknown setting 'burst'");
    assertThatThrownBy(() -> S3Profile.parse("paper;aggregate")).hasMessageContaining("not key=value");
  }
}
