package io.braidfs.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DataSizeTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '=',
      value = {
        "0 = 0",
        "512 = 512",
        "512B = 512",
        "512 b = 512",
        "4KiB = 4096",
        "4 KiB = 4096",
        "4kib = 4096",
        "64MiB = 67108864",
        "64MIB = 67108864",
        "1GiB = 1073741824",
        "2TiB = 2199023255552",
        "'  16MiB  ' = 16777216",
      })
  void parsesGoodValues(String text, long bytes) {
    assertThat(DataSize.parse(text).toBytes()).isEqualTo(bytes);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '=',
      value = {
        "0 = 0B",
        "1 = 1B",
        "1023 = 1023B",
        "1024 = 1KiB",
        "1536 = 1536B",
        "4194304 = 4MiB",
        "1073741824 = 1GiB",
        "3298534883328 = 3TiB",
        "1125899906842624 = 1024TiB",
      })
  void formatsWithTheLargestExactUnit(long bytes, String text) {
    DataSize size = DataSize.ofBytes(bytes);
    assertThat(size.toString()).isEqualTo(text);
    assertThat(DataSize.parse(text)).isEqualTo(size);
  }

  @Test
  void factoriesMultiplyByPowersOf1024() {
    assertThat(DataSize.ofKiB(3).toBytes()).isEqualTo(3L << 10);
    assertThat(DataSize.ofMiB(3).toBytes()).isEqualTo(3L << 20);
    assertThat(DataSize.ofGiB(3).toBytes()).isEqualTo(3L << 30);
    assertThat(DataSize.ofTiB(3).toBytes()).isEqualTo(3L << 40);
    assertThat(DataSize.ofBytes(0)).isSameAs(DataSize.ZERO);
  }

  @Test
  void valueSemantics() {
    assertThat(DataSize.parse("1MiB")).isEqualTo(DataSize.ofKiB(1024));
    assertThat(DataSize.parse("1MiB")).hasSameHashCodeAs(DataSize.ofKiB(1024));
    assertThat(DataSize.ofKiB(1)).isLessThan(DataSize.ofBytes(1025));
    assertThat(DataSize.ofMiB(16).toIntBytes()).isEqualTo(16 << 20);
    assertThatThrownBy(() -> DataSize.ofGiB(2).toIntBytes())
        .isInstanceOf(ArithmeticException.class);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '=',
      value = {
        "'' = it is empty",
        "'   ' = it is empty",
        "-1MiB = cannot be negative",
        "1.5GiB = fractions are not accepted",
        "4MB = the unit 'MB' is ambiguous (1000 or 1024?); write the binary unit MiB instead",
        "4kb = the unit 'kb' is ambiguous (1000 or 1024?); write the binary unit KiB instead",
        "1g = the unit 'g' is ambiguous (1000 or 1024?); write the binary unit GiB instead",
        "2T = the unit 'T' is ambiguous (1000 or 1024?); write the binary unit TiB instead",
        "10XB = unknown unit 'XB'; units are B, KiB, MiB, GiB and TiB",
        "abc = it must be a whole number of bytes with an optional binary unit",
        "MiB = it must be a whole number",
        "4 MiB x = it must be a whole number",
        "9223372036854775808 = the number is too large",
        "8388608TiB = the number is too large",
      })
  void rejectsBadValuesNamingTheProblem(String text, String problem) {
    assertThatThrownBy(() -> DataSize.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid data size '" + text + "': ")
        .hasMessageContaining(problem);
  }

  @Test
  void factoriesRejectNegativeAndOverflow() {
    assertThatThrownBy(() -> DataSize.ofBytes(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative");
    assertThatThrownBy(() -> DataSize.ofMiB(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative");
    assertThatThrownBy(() -> DataSize.ofTiB(1L << 23))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not fit");
    assertThat(DataSize.ofTiB((1L << 23) - 1).toBytes()).isEqualTo(((1L << 23) - 1) << 40);
  }
}
