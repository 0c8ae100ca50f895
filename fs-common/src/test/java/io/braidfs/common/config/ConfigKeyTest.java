package io.braidfs.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigKeyTest {
  private enum Mode {
    FAST,
    SAFE
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "braid.rpc.transport",
        "braid.rpc.client.call-timeout",
        "braid.mds.ha.zk-session-timeout2",
        "braid.a1.b.c.d"
      })
  void acceptsWellFormedNames(String name) {
    assertThat(ConfigKey.bool(name, true, "A flag.").name()).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "braid",
        "braid.rpc",
        "Braid.rpc.x",
        "braid.RPC.x",
        "braid.rpc.callTimeout",
        "braid.rpc.call_timeout",
        "braid.rpc..x",
        "braid.rpc.x.",
        "braid.rpc.x-",
        "braid.rpc.-x",
        "braid.rpc.x--y",
        "braid.rpc.1x",
        "braid.rpc.call timeout",
        "fs.braid.rpc.x",
        "other.rpc.x"
      })
  void rejectsMalformedNames(String name) {
    assertThatThrownBy(() -> ConfigKey.bool(name, true, "A flag."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid config key name '" + name + "'")
        .hasMessageContaining("braid.<component>.<area>.<name>");
  }

  @Test
  void rejectsBadDescriptions() {
    assertThatThrownBy(() -> ConfigKey.bool("braid.t.flag", true, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("braid.t.flag")
        .hasMessageContaining("one non-empty line");
    assertThatThrownBy(() -> ConfigKey.bool("braid.t.flag", true, "two\nlines"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one non-empty line");
  }

  @Test
  void integerRangeIsEnforcedOnParseAndOnTypedValues() {
    ConfigKey<Integer> key = ConfigKey.integer("braid.t.count", 5, 1, 10, "A count.");

    assertThat(key.parse("10")).isEqualTo(10);
    assertThat(key.parse(" 7 ")).isEqualTo(7);
    assertThatThrownBy(() -> key.parse("0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "braid.t.count: invalid value '0': out of range; expected an integer from 1 to 10");
    assertThatThrownBy(() -> key.parse("11"))
        .hasMessageContaining("braid.t.count")
        .hasMessageContaining("'11'")
        .hasMessageContaining("from 1 to 10");
    assertThatThrownBy(() -> key.validate(42))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("braid.t.count: invalid value '42': out of range");
    assertThatThrownBy(() -> key.format(-3)).hasMessageContaining("'-3'");
  }

  @Test
  void integerParseErrorsNameKeyValueAndExpectation() {
    ConfigKey<Integer> key = ConfigKey.integer("braid.t.count", 5, 1, 10, "A count.");

    assertThatThrownBy(() -> key.parse("ten"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "braid.t.count: invalid integer 'ten': not a decimal integer;"
                + " expected an integer from 1 to 10");
    assertThatThrownBy(() -> key.parse("99999999999"))
        .hasMessageContaining("braid.t.count")
        .hasMessageContaining("'99999999999'")
        .hasMessageContaining("too large");
    assertThatThrownBy(() -> key.parse("1.5")).hasMessageContaining("not a decimal integer");
  }

  @Test
  void rejectsAnInvalidDefaultOrRangeAtDeclaration() {
    assertThatThrownBy(() -> ConfigKey.integer("braid.t.count", 0, 1, 10, "A count."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("braid.t.count: invalid value '0': out of range");
    assertThatThrownBy(() -> ConfigKey.integer("braid.t.count", 5, 10, 1, "A count."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("braid.t.count: invalid range [10, 1]");
    assertThatThrownBy(
            () ->
                ConfigKey.duration(
                    "braid.t.timeout",
                    Duration.ofSeconds(1),
                    Duration.ofSeconds(-1),
                    null,
                    "A timeout."))
        .hasMessageContaining("invalid range");
    assertThatThrownBy(
            () -> ConfigKey.duration("braid.t.timeout", Duration.ofSeconds(-1), "A timeout."))
        .hasMessageContaining("braid.t.timeout: invalid value");
  }

  @Test
  void longKey() {
    ConfigKey<Long> key =
        ConfigKey.longKey("braid.t.big", 1L << 40, 0, Long.MAX_VALUE, "A big number.");

    assertThat(key.parse("1099511627777")).isEqualTo((1L << 40) + 1);
    assertThat(key.typeDescription()).isEqualTo("long, at least 0");
    assertThatThrownBy(() -> key.parse("-1"))
        .hasMessage(
            "braid.t.big: invalid value '-1': out of range; expected an integer of at least 0");
  }

  @Test
  void durationKey() {
    ConfigKey<Duration> key =
        ConfigKey.duration(
            "braid.t.timeout",
            Duration.ofSeconds(30),
            Duration.ofMillis(1),
            Duration.ofDays(1),
            "A timeout.");

    assertThat(key.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(key.format(Duration.ofMinutes(2))).isEqualTo("2m");
    assertThat(key.typeDescription()).isEqualTo("duration, 1ms to 1d");
    assertThatThrownBy(() -> key.parse("30"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "braid.t.timeout: invalid duration '30': the unit is missing; write for example 30ms"
                + " or 30s; expected a duration from 1ms to 1d");
    assertThatThrownBy(() -> key.parse("0s"))
        .hasMessage(
            "braid.t.timeout: invalid value '0s': out of range;"
                + " expected a duration from 1ms to 1d");
    assertThat(ConfigKey.duration("braid.t.any", Duration.ZERO, "Any.").typeDescription())
        .isEqualTo("duration");
  }

  @Test
  void dataSizeKey() {
    ConfigKey<DataSize> key =
        ConfigKey.dataSize(
            "braid.t.size", DataSize.ofMiB(4), DataSize.ofKiB(1), DataSize.ofMiB(256), "A size.");

    assertThat(key.parse("64 MiB")).isEqualTo(DataSize.ofMiB(64));
    assertThat(key.format(DataSize.ofMiB(64))).isEqualTo("64MiB");
    assertThat(key.typeDescription()).isEqualTo("data size, 1KiB to 256MiB");
    assertThatThrownBy(() -> key.parse("4MB"))
        .hasMessageContaining("braid.t.size")
        .hasMessageContaining("'4MB'")
        .hasMessageContaining("write the binary unit MiB")
        .hasMessageEndingWith("expected a data size from 1KiB to 256MiB");
    assertThatThrownBy(() -> key.parse("1GiB"))
        .hasMessage(
            "braid.t.size: invalid value '1GiB': out of range;"
                + " expected a data size from 1KiB to 256MiB");
  }

  @Test
  void booleanKey() {
    ConfigKey<Boolean> key = ConfigKey.bool("braid.t.flag", false, "A flag.");

    assertThat(key.parse("TRUE")).isTrue();
    assertThat(key.parse(" false ")).isFalse();
    assertThat(key.format(true)).isEqualTo("true");
    assertThatThrownBy(() -> key.parse("yes"))
        .hasMessage("braid.t.flag: invalid boolean 'yes'; expected true or false");
  }

  @Test
  void enumKey() {
    ConfigKey<Mode> key = ConfigKey.enumKey("braid.t.mode", Mode.SAFE, "A mode.");

    assertThat(key.parse("fast")).isEqualTo(Mode.FAST);
    assertThat(key.format(Mode.FAST)).isEqualTo("FAST");
    assertThat(key.type()).isEqualTo(ConfigKey.Type.ENUM);
    assertThat(key.typeDescription()).isEqualTo("enum: FAST, SAFE");
    assertThatThrownBy(() -> key.parse("turbo"))
        .hasMessage(
            "braid.t.mode: invalid value 'turbo'; expected one of FAST, SAFE (case-insensitive)");
  }

  @Test
  void stringAndStringListKeys() {
    ConfigKey<String> name = ConfigKey.string("braid.t.name", "", "A name.");
    assertThat(name.parse("  hello world ")).isEqualTo("hello world");
    assertThat(name.defaultValue()).isEmpty();

    ConfigKey<List<String>> hosts =
        ConfigKey.stringList("braid.t.hosts", List.of("a:1"), "Some hosts.");
    assertThat(hosts.parse(" a:1, b:2 ,, ")).containsExactly("a:1", "b:2");
    assertThat(hosts.parse("")).isEmpty();
    assertThat(hosts.format(List.of("a:1", "b:2"))).isEqualTo("a:1,b:2");
    assertThatThrownBy(() -> hosts.format(List.of("a,b")))
        .hasMessageContaining("braid.t.hosts")
        .hasMessageContaining("contains a comma");
    assertThatThrownBy(() -> ConfigKey.stringList("braid.t.bad", List.of(" x"), "Bad default."))
        .hasMessageContaining("braid.t.bad");
  }

  @Test
  void typeDescriptionsForTheDocs() {
    assertThat(ConfigKey.integer("braid.t.a", 0, 0, Integer.MAX_VALUE, "A.").typeDescription())
        .isEqualTo("int, at least 0");
    assertThat(
            ConfigKey.integer("braid.t.b", 0, Integer.MIN_VALUE, Integer.MAX_VALUE, "B.")
                .typeDescription())
        .isEqualTo("int");
    assertThat(ConfigKey.integer("braid.t.c", 0, Integer.MIN_VALUE, 9, "C.").typeDescription())
        .isEqualTo("int, at most 9");
    assertThat(ConfigKey.dataSize("braid.t.d", DataSize.ZERO, "D.").typeDescription())
        .isEqualTo("data size");
    assertThat(ConfigKey.bool("braid.t.e", true, "E.").typeDescription()).isEqualTo("boolean");
  }
}
