package io.braidfs.dataserver.store;

import java.nio.file.Path;
import java.util.List;

/**
 * How a {@link ChunkStore} uses its disks.
 *
 * <p>Thread-safety: immutable.
 *
 * @param dirs the data directories, one per disk; created if missing; at least one
 * @param reservedBytes per directory, space on its file system left for others (never used)
 * @param capacityBytes per directory, the most bytes of replicas it may hold; 0 means the size of
 *     its file system
 */
public record StoreSettings(List<Path> dirs, long reservedBytes, long capacityBytes) {

  /**
   * Checks the settings.
   *
   * @throws IllegalArgumentException if there is no directory or a size is negative
   */
  public StoreSettings {
    dirs = List.copyOf(dirs);
    if (dirs.isEmpty()) {
      throw new IllegalArgumentException("at least one data directory is needed");
    }
    if (reservedBytes < 0 || capacityBytes < 0) {
      throw new IllegalArgumentException(
          "reserved and capacity must be >= 0: " + reservedBytes + ", " + capacityBytes);
    }
  }
}
