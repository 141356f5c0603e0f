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
    void aNegativeOrUnknownDurationIsRefused() {
        assertThatThrownBy(() -> durations.convert("-1s")).isInstanceOf(TypeConversionException.class);
        assertThatThrownBy(() -> durations.convert("3 days")).isInstanceOf(TypeConversionException.class);
    }
}
