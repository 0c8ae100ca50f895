package io.braidfs.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.rpc.RpcConfigKeys;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigKeyRegistryTest {
  @Test
  void discoversTheRegisteredKeySets() {
    ConfigKeyRegistry registry = ConfigKeyRegistry.discover();

    assertThat(registry.keySets()).anyMatch(s -> s instanceof RpcConfigKeys);
    assertThat(registry.key("braid.rpc.transport")).isSameAs(RpcConfigKeys.TRANSPORT);
    assertThat(registry.key("braid.test.count")).isNull(); // TestKeys is not registered
    assertThat(ConfigKeyRegistry.discover()).isSameAs(registry);
  }

  @Test
  void keysAreSortedByName() {
    assertThat(TestKeys.registry().keys().keySet())
        .containsExactly(
            "braid.test.buffer.size",
            "braid.test.count",
            "braid.test.hosts",
            "braid.test.mode",
            "braid.test.timeout");
  }

  @Test
  void rejectsAKeyOutsideItsComponent() {
    ConfigKeySet wrong = keySet("other", ConfigKey.bool("braid.test.flag", true, "F."));

    assertThatThrownBy(() -> ConfigKeyRegistry.of(List.of(wrong)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("braid.test.flag")
        .hasMessageContaining("braid.other.");
  }

  @Test
  void rejectsDuplicateKeysButLetsAComponentSpanSeveralSets() {
    ConfigKey<Boolean> flag = ConfigKey.bool("braid.test.flag", true, "F.");
    ConfigKey<Boolean> other = ConfigKey.bool("braid.test.other", true, "O.");

    assertThatThrownBy(
            () -> ConfigKeyRegistry.of(List.of(keySet("test", flag), keySet("test", flag))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("braid.test.flag declared twice");
    assertThat(
            ConfigKeyRegistry.of(List.of(keySet("test", flag), keySet("test", other)))
                .key("braid.test.other"))
        .isSameAs(other);
    assertThatThrownBy(() -> ConfigKeyRegistry.of(List.of(keySet("test", flag, flag))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("braid.test.flag declared twice");
  }

  private static ConfigKeySet keySet(String component, ConfigKey<?>... keys) {
    return new ConfigKeySet() {
      @Override
      public String component() {
        return component;
      }

      @Override
      public List<ConfigKey<?>> keys() {
        return List.of(keys);
      }
    };
  }
}
