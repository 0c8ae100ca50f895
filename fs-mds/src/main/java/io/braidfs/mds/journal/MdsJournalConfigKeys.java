package io.braidfs.mds.journal;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import java.util.List;

/**
 * The configuration keys of the MDS journal (component {@code mds}, area {@code journal}). Whether
 * an acknowledged mutation is durable is {@code braid.mds.store.sync} ({@link
 * io.braidfs.mds.store.MdsStoreConfigKeys#SYNC}). Registered for {@link java.util.ServiceLoader} in
 * {@code META-INF/services}, and listed in {@code docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class MdsJournalConfigKeys implements ConfigKeySet {
  public static final ConfigKey<Long> RETAINED_RECORDS =
      ConfigKey.longKey(
          "braid.mds.journal.retained-records",
          1_000_000L,
          1L,
          Long.MAX_VALUE,
          "Journal records kept in the store for replay and tools; each append removes the record"
              + " this many indexes older. Lowering it later leaves the older records in place.");

  private static final List<ConfigKey<?>> KEYS = List.of(RETAINED_RECORDS);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public MdsJournalConfigKeys() {}

  /** Always {@code mds}. */
  @Override
  public String component() {
    return "mds";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
