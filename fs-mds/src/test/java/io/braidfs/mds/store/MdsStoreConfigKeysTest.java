package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKeyRegistry;
import io.braidfs.common.config.DataSize;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MdsStoreConfigKeysTest {
  @Test
  void registeredForServiceLoader() {
    assertThat(ConfigKeyRegistry.discover().keys())
        .containsKeys("braid.mds.store.dir", "braid.mds.store.sync", "braid.mds.store.block-cache")
        .doesNotContainKeys("braid.mds.store.commit-queue", "braid.mds.store.commit-queue-timeout");
  }

  @Test
  void defaultsAreDurable() {
    StoreOptions options = StoreOptions.defaults();
    assertThat(options.dir()).isEqualTo(Path.of("./braid-data/mds"));
    assertThat(options.sync()).isTrue();
    assertThat(options.blockCache()).isEqualTo(DataSize.ofMiB(64));
  }

  @Test
  void readsConfiguredValues() {
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of(
                "braid.mds.store.dir", "/var/lib/braid/mds",
                "braid.mds.store.sync", "false",
                "braid.mds.store.block-cache", "1GiB"));
    assertThat(StoreOptions.from(config))
        .isEqualTo(new StoreOptions(Path.of("/var/lib/braid/mds"), false, DataSize.ofGiB(1)));
  }

  @Test
  void rejectsValuesOutOfRange() {
    assertThatThrownBy(() -> BraidConfig.fromMap(Map.of("braid.mds.store.block-cache", "4KiB")))
        .hasMessageContaining("braid.mds.store.block-cache");
  }
}
