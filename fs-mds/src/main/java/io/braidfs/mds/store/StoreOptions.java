package io.braidfs.mds.store;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.DataSize;
import java.nio.file.Path;

/**
 * The tunables of the metadata store, read once from the {@code braid.mds.store.*} keys ({@link
 * MdsStoreConfigKeys}).
 *
 * <p>Thread-safety: immutable.
 *
 * @param dir the RocksDB directory
 * @param sync whether a write syncs the write-ahead log before it returns ({@link
 *     MetadataStore#applyAll(java.util.List, long)}), and whether the journal waits for a sync
 *     before it acknowledges a mutation
 * @param blockCache the shared block cache size
 */
public record StoreOptions(Path dir, boolean sync, DataSize blockCache) {

  /**
   * Validates the options.
   *
   * @throws IllegalArgumentException if the block cache is empty
   */
  public StoreOptions {
    if (blockCache.toBytes() <= 0) {
      throw new IllegalArgumentException("blockCache must be > 0: " + blockCache);
    }
  }

  /** The defaults of the {@code braid.mds.store.*} keys. */
  public static StoreOptions defaults() {
    return from(BraidConfig.defaults());
  }

  /**
   * The options set by the {@code braid.mds.store.*} keys of {@code config}.
   *
   * @throws java.nio.file.InvalidPathException if the directory is not a valid path
   */
  public static StoreOptions from(BraidConfig config) {
    return new StoreOptions(
        Path.of(config.get(MdsStoreConfigKeys.DIR)),
        config.get(MdsStoreConfigKeys.SYNC),
        config.get(MdsStoreConfigKeys.BLOCK_CACHE));
  }

  /** These options with the store in {@code dir}. */
  public StoreOptions withDir(Path dir) {
    return new StoreOptions(dir, sync, blockCache);
  }

  /** These options with syncing on or off. */
  public StoreOptions withSync(boolean sync) {
    return new StoreOptions(dir, sync, blockCache);
  }
}
