package io.braidfs.mds.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKeyRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MdsJournalConfigKeysTest {
  @Test
  void registeredForServiceLoaderWithAMillionRetainedRecords() {
    assertThat(ConfigKeyRegistry.discover().keys())
        .containsKey("braid.mds.journal.retained-records");
    assertThat(BraidConfig.defaults().get(MdsJournalConfigKeys.RETAINED_RECORDS))
        .isEqualTo(1_000_000L);
    assertThat(new MdsJournalConfigKeys().component()).isEqualTo("mds");
  }

  @Test
  void keepsAtLeastOneRecord() {
    assertThat(
            BraidConfig.fromMap(Map.of("braid.mds.journal.retained-records", "1"))
                .get(MdsJournalConfigKeys.RETAINED_RECORDS))
        .isEqualTo(1L);
    assertThatThrownBy(() -> BraidConfig.fromMap(Map.of("braid.mds.journal.retained-records", "0")))
        .hasMessageContaining("braid.mds.journal.retained-records");
  }
}
