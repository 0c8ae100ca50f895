package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKeyRegistry;
import io.braidfs.common.config.DataSize;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MdsStoreConfigKeysTest {
  @Test
  void registeredForServiceLoader() {
    assertThat(ConfigKeyRegistry.discover().keys())
        .containsKeys(
            "braid.mds.store.dir",
            "braid.mds.store.sync",
            "braid.mds.store.commit-queue",
            "braid.mds.store.commit-queue-timeout",
            "braid.mds.store.block-cache");
  }

  @Test
  void defaultsAreDurableWithAQueueOf4096() {
    StoreOptions options = StoreOptions.defaults();
    assertThat(options.dir()).isEqualTo(Path.of("./braid-data/mds"));
    assertThat(options.sync()).isTrue();
    assertThat(options.commitQueue()).isEqualTo(4096);
    assertThat(options.commitQueueTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(options.blockCache()).isEqualTo(DataSize.ofMiB(64));
  }

  @Test
  void readsConfiguredValues() {
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of(
                "braid.mds.store.dir", "/var/lib/braid/mds",
                "braid.mds.store.sync", "false",
                "braid.mds.store.commit-queue", "128",
                "braid.mds.store.commit-queue-timeout", "250ms",
                "braid.mds.store.block-cache", "1GiB"));
    assertThat(StoreOptions.from(config))
        .isEqualTo(
            new StoreOptions(
                Path.of("/var/lib/braid/mds"),
                false,
                128,
                Duration.ofMillis(250),
                DataSize.ofGiB(1)));
  }

  @Test
  void rejectsValuesOutOfRange() {
    assertThatThrownBy(() -> BraidConfig.fromMap(Map.of("braid.mds.store.commit-queue", "0")))
        .hasMessageContaining("braid.mds.store.commit-queue");
    assertThatThrownBy(() -> BraidConfig.fromMap(Map.of("braid.mds.store.block-cache", "4KiB")))
        .hasMessageContaining("braid.mds.store.block-cache");
  }
}
