package io.braidfs.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.rpc.RpcConfigKeys;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class BraidConfigTest {
  private final ConfigKeyRegistry registry = TestKeys.registry();

  @Test
  void unsetKeysHaveTheirDefaults() {
    BraidConfig config = BraidConfig.fromMap(Map.of(), registry);

    assertThat(config.get(TestKeys.SIZE)).isEqualTo(DataSize.ofKiB(64));
    assertThat(config.get(TestKeys.COUNT)).isEqualTo(3);
    assertThat(config.get(TestKeys.TIMEOUT)).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.get(TestKeys.MODE)).isEqualTo(TestKeys.Mode.SAFE);
    assertThat(config.get(TestKeys.HOSTS)).isEmpty();
    assertThat(config.isSet(TestKeys.COUNT)).isFalse();
    assertThat(config.unknownKeys()).isEmpty();
  }

  @Test
  void overridesFromAMap() {
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of(
                "braid.test.buffer.size", "256KiB",
                "braid.test.count", " 7 ",
                "braid.test.mode", "fast",
                "braid.test.hosts", "a:1,b:2"),
            registry);

    assertThat(config.get(TestKeys.SIZE)).isEqualTo(DataSize.ofKiB(256));
    assertThat(config.get(TestKeys.COUNT)).isEqualTo(7);
    assertThat(config.get(TestKeys.MODE)).isEqualTo(TestKeys.Mode.FAST);
    assertThat(config.get(TestKeys.HOSTS)).containsExactly("a:1", "b:2");
    assertThat(config.get(TestKeys.TIMEOUT)).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.isSet(TestKeys.COUNT)).isTrue();
  }

  @Test
  void overridesFromPropertiesIncludingTheirDefaults() {
    Properties defaults = new Properties();
    defaults.setProperty("braid.test.count", "2");
    defaults.setProperty("braid.test.timeout", "5s");
    Properties props = new Properties(defaults);
    props.setProperty("braid.test.count", "9");
    props.put("braid.test.not-a-string", 42); // not a string entry: ignored

    BraidConfig config = BraidConfig.fromProperties(props, registry);

    assertThat(config.get(TestKeys.COUNT)).isEqualTo(9);
    assertThat(config.get(TestKeys.TIMEOUT)).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.unknownKeys()).isEmpty();
  }

  @Test
  void unknownKeysAreTheUndeclaredBraidKeys() {
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of(
                "braid.test.cuont", "3",
                "braid.nosuch.component.key", "x",
                "braid.test.count", "3",
                "java.home", "/usr/lib/jvm",
                "fs.braid.client.x", "y"),
            registry);

    assertThat(config.unknownKeys())
        .containsExactly("braid.nosuch.component.key", "braid.test.cuont");
  }

  @Test
  void invalidValuesFailAtConstructionNamingTheKey() {
    assertThatThrownBy(
            () -> BraidConfig.fromMap(Map.of("braid.test.buffer.size", "64MB"), registry))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid configuration: braid.test.buffer.size: ")
        .hasMessageContaining("'64MB'")
        .hasMessageContaining("MiB");
  }

  @Test
  void everyInvalidValueIsReportedAtOnce() {
    assertThatThrownBy(
            () ->
                BraidConfig.fromMap(
                    Map.of("braid.test.count", "0", "braid.test.timeout", "30"), registry))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 errors")
        .hasMessageContaining("braid.test.count: invalid value '0': out of range")
        .hasMessageContaining("braid.test.timeout: invalid duration '30': the unit is missing");
  }

  @Test
  void builderSetsTypedValuesAndChecksThemImmediately() {
    BraidConfig config =
        BraidConfig.builder(registry)
            .set(TestKeys.COUNT, 4)
            .set(TestKeys.TIMEOUT, Duration.ofMillis(1500))
            .set(TestKeys.HOSTS, List.of("h:1"))
            .build();

    assertThat(config.get(TestKeys.COUNT)).isEqualTo(4);
    assertThat(config.get(TestKeys.TIMEOUT)).isEqualTo(Duration.ofMillis(1500));
    assertThat(config.get(TestKeys.HOSTS)).containsExactly("h:1");
    assertThatThrownBy(() -> BraidConfig.builder(registry).set(TestKeys.COUNT, 11))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("braid.test.count");
  }

  @Test
  void builderRawValuesAreParsedAtBuild() {
    BraidConfig.Builder builder = BraidConfig.builder(registry).set("braid.test.count", "lots");

    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("braid.test.count: invalid integer 'lots'");
  }

  @Test
  void toBuilderKeepsEntriesAndUnsetRestoresTheDefault() {
    BraidConfig base =
        BraidConfig.fromMap(Map.of("braid.test.count", "5", "braid.test.typo", "1"), registry);

    BraidConfig derived =
        base.toBuilder().unset(TestKeys.COUNT).set(TestKeys.MODE, TestKeys.Mode.FAST).build();

    assertThat(base.get(TestKeys.COUNT)).isEqualTo(5);
    assertThat(base.get(TestKeys.MODE)).isEqualTo(TestKeys.Mode.SAFE);
    assertThat(derived.get(TestKeys.COUNT)).isEqualTo(3);
    assertThat(derived.get(TestKeys.MODE)).isEqualTo(TestKeys.Mode.FAST);
    assertThat(derived.unknownKeys()).containsExactly("braid.test.typo");
  }

  @Test
  void describeEffectiveListsEveryDeclaredKeySorted() {
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of("braid.test.count", "8", "braid.test.timeout", "90000ms", "braid.x.y", "z"),
            registry);

    assertThat(config.describeEffective())
        .isEqualTo(
            String.join(
                "\n",
                "braid.test.buffer.size=64KiB",
                "braid.test.count=8",
                "braid.test.hosts=",
                "braid.test.mode=SAFE",
                "braid.test.timeout=90s"));
  }

  @Test
  void keysOutsideTheRegistryAreParsedOnGet() {
    ConfigKey<Integer> undeclared =
        ConfigKey.integer("braid.other.limit", 1, 0, 5, "Not in the registry.");

    BraidConfig good = BraidConfig.fromMap(Map.of("braid.other.limit", "4"), registry);
    BraidConfig bad = BraidConfig.fromMap(Map.of("braid.other.limit", "6"), registry);

    assertThat(good.get(undeclared)).isEqualTo(4);
    assertThat(BraidConfig.fromMap(Map.of(), registry).get(undeclared)).isEqualTo(1);
    assertThatThrownBy(() -> bad.get(undeclared)).hasMessageContaining("braid.other.limit");
  }

  @Test
  void theDiscoveredRegistryKnowsTheRpcKeys() {
    BraidConfig config =
        BraidConfig.fromMap(Map.of("braid.rpc.client.call-timeout", "5s", "braid.rpc.typo", "1"));

    assertThat(config.get(RpcConfigKeys.CLIENT_CALL_TIMEOUT)).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.get(RpcConfigKeys.SERVER_MAX_INFLIGHT)).isEqualTo(256);
    assertThat(config.unknownKeys()).containsExactly("braid.rpc.typo");
    assertThat(BraidConfig.defaults().describeEffective())
        .contains("braid.rpc.client.call-timeout=30s")
        .contains("braid.rpc.frame.max-message=4MiB");
  }

  @Test
  void toStringShowsNamesButNotValues() {
    BraidConfig config = BraidConfig.fromMap(Map.of("braid.test.count", "8"), registry);

    assertThat(config.toString()).contains("braid.test.count").doesNotContain("8");
  }
}
