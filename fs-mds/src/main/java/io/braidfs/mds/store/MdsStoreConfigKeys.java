package io.braidfs.mds.store;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import io.braidfs.common.config.DataSize;
import java.util.List;

/**
 * The configuration keys of the metadata store (component {@code mds}, area {@code store}): where
 * the RocksDB lives, whether an acknowledged mutation is durable, the block cache and the in-memory
 * cache of inodes and entries. {@link StoreOptions#from} reads them. Registered for {@link
 * java.util.ServiceLoader} in {@code META-INF/services}, and listed in {@code
 * docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class MdsStoreConfigKeys implements ConfigKeySet {
  public static final ConfigKey<String> DIR =
      ConfigKey.string(
          "braid.mds.store.dir",
          "./braid-data/mds",
          "Directory of the MDS's RocksDB namespace store; created if missing.");

  public static final ConfigKey<Boolean> SYNC =
      ConfigKey.bool(
          "braid.mds.store.sync",
          true,
          "Sync the write-ahead log before acknowledging a mutation (concurrent mutations share"
              + " one sync); false risks losing acknowledged mutations if the machine (not just"
              + " the process) crashes.");

  public static final ConfigKey<DataSize> BLOCK_CACHE =
      ConfigKey.dataSize(
          "braid.mds.store.block-cache",
          DataSize.ofMiB(64),
          DataSize.ofMiB(1),
          null,
          "RocksDB block cache shared by every column family of the namespace store.");

  public static final ConfigKey<Integer> CACHE_ENTRIES =
      ConfigKey.integer(
          "braid.mds.store.cache-entries",
          262_144,
          0,
          1 << 26,
          "Inodes and directory entries the MDS keeps in memory in front of RocksDB (about 200"
              + " bytes each), kept current by every mutation; path lookups that hit it are"
              + " answered without a RocksDB read, getattr on the event loop. 0 disables it.");

  private static final List<ConfigKey<?>> KEYS = List.of(DIR, SYNC, BLOCK_CACHE, CACHE_ENTRIES);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public MdsStoreConfigKeys() {}

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
