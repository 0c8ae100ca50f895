package io.braidfs.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DurationsTest {
  @Test
  void parsesEveryUnit() {
    assertThat(Durations.parse("1500ns")).isEqualTo(Duration.ofNanos(1500));
    assertThat(Durations.parse("100us")).isEqualTo(Duration.ofNanos(100_000));
    assertThat(Durations.parse("100\u00b5s")).isEqualTo(Duration.ofNanos(100_000)); // micro sign
    assertThat(Durations.parse("100\u03bcs")).isEqualTo(Duration.ofNanos(100_000)); // Greek mu
    assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("2d")).isEqualTo(Duration.ofDays(2));
    assertThat(Durations.parse("0s")).isEqualTo(Duration.ZERO);
  }

  @Test
  void ignoresCaseAndWhitespace() {
    assertThat(Durations.parse("  30 s ")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("250MS")).isEqualTo(Duration.ofMillis(250));
    assertThat(Durations.parse("5M")).isEqualTo(Duration.ofMinutes(5));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '=',
      value = {
        "PT0S = 0s",
        "PT0.000001500S = 1500ns",
        "PT0.0001S = 100us",
        "PT0.25S = 250ms",
        "PT1.5S = 1500ms",
        "PT30S = 30s",
        "PT90S = 90s",
        "PT5M = 5m",
        "PT1H = 1h",
        "PT25H = 25h",
        "PT48H = 2d",
        "PT0.001000001S = 1000001ns",
      })
  void formatsWithTheLargestExactUnit(String iso, String text) {
    Duration d = Duration.parse(iso);
    assertThat(Durations.format(d)).isEqualTo(text);
    assertThat(Durations.parse(text)).isEqualTo(d);
  }

  @Test
  void roundTripsLargeValues() {
    for (Duration d :
        List.of(
            Duration.ofDays(365 * 1000),
            Duration.ofSeconds(Long.MAX_VALUE / 2),
            Duration.ofNanos(Long.MAX_VALUE))) {
      assertThat(Durations.parse(Durations.format(d))).isEqualTo(d);
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '=',
      value = {
        "'' = it is empty",
        "30 = the unit is missing; write for example 30ms or 30s",
        "-5s = a duration cannot be negative",
        "1.5s = fractions are not accepted",
        "1h30m = compound durations are not accepted",
        "5y = unknown unit 'y'; units are ns, us, ms, s, m, h and d",
        "5 sec = unknown unit 'sec'",
        "abc = it must be a whole number with a unit",
        "s = it must be a whole number with a unit",
        "99999999999999999999s = the number is too large",
        "9223372036854775807d = the number is too large",
      })
  void rejectsBadValuesNamingTheProblem(String text, String problem) {
    assertThatThrownBy(() -> Durations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid duration '" + text + "': ")
        .hasMessageContaining(problem);
  }

  @Test
  void refusesToFormatNegativeDurations() {
    assertThatThrownBy(() -> Durations.format(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative");
  }
}
