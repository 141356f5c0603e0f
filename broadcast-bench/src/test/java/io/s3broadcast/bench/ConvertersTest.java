package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class ConvertersTest {

    private final Converters.DurationConverter durations = new Converters.DurationConverter();

    @Test
    void aDurationTakesDecimalsAndEveryUnitFromNanosecondsToHours() {
        assertThat(durations.convert("1.5ms")).isEqualTo(Duration.ofNanos(1_500_000));
        assertThat(durations.convert("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(durations.convert("250us")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(durations.convert("40ns")).isEqualTo(Duration.ofNanos(40));
        assertThat(durations.convert("0.5s")).isEqualTo(Duration.ofMillis(500));
        assertThat(durations.convert("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(durations.convert("30")).isEqualTo(Duration.ofSeconds(30));
        assertThat(durations.convert("0")).isEqualTo(Duration.ZERO);
        assertThat(durations.convert("PT30S")).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aDurationIsRoundedHalfUpToTheNanosecondWithManyDigitsToo() {
        assertThat(durations.convert("1.0000005us")).isEqualTo(Duration.ofNanos(1000));
        assertThat(durations.convert("0.0000015ms")).isEqualTo(Duration.ofNanos(2));
        assertThat(durations.convert("0.0015us")).isEqualTo(Duration.ofNanos(2));
        assertThat(durations.convert("0.0025us")).isEqualTo(Duration.ofNanos(3));
        assertThat(durations.convert("0.5ns")).isEqualTo(Duration.ofNanos(1));
        assertThat(durations.convert(".25s")).isEqualTo(Duration.ofMillis(250));
        assertThat(durations.convert("12.")).isEqualTo(Duration.ofSeconds(12));
        assertThat(durations.convert("0.999999h")).isEqualTo(Duration.ofNanos(3_599_996_400_000L));
        assertThat(durations.convert("2562047h")).isEqualTo(Duration.ofHours(2562047));
        assertThatThrownBy(() -> durations.convert("2562048h")).isInstanceOf(TypeConversionException.class)
                .hasMessageContaining("too long");
        assertThatThrownBy(() -> durations.convert("99999999999999999999s")).isInstanceOf(TypeConversionException.class)
                .hasMessageContaining("too long");
    }

    @Test
    void aNegativeOrUnknownDurationIsRefused() {
        assertThatThrownBy(() -> durations.convert("-1s")).isInstanceOf(TypeConversionException.class);
        assertThatThrownBy(() -> durations.convert("3 days")).isInstanceOf(TypeConversionException.class);
    }
}
