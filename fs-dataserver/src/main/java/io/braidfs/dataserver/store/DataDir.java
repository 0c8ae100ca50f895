package io.braidfs.dataserver.store;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One data directory: where its replicas' files go, its {@link StorageProperties}, and its space.
 *
 * <p>Space: {@code used} is the sum of the data and meta file sizes of its replicas, kept up to
 * date by the replicas as they change ({@link #addUsed}). The file system's usable space is read at
 * most once a {@linkplain #SPACE_REFRESH_NANOS second} (and after a full disk), because {@link
 * FileStore#getUsableSpace()} is a system call too slow for every write.
 *
 * <p>Thread-safety: thread-safe. Properties are replaced only under the owning {@link ChunkStore}'s
 * identity lock.
 */
final class DataDir {
  private static final Logger LOG = LoggerFactory.getLogger(DataDir.class);

  static final String CHUNKS = "chunks";
  static final long SPACE_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Path path;
  private final Path chunks;
  private final FileStore fileStore;
  private final String device;
  private final long capacityBytes;
  private final long reservedBytes;
  private final AtomicLong usedBytes = new AtomicLong();
  private volatile StorageProperties properties;
  private volatile long usableBytes;
  private volatile long usableReadAt;
  private volatile boolean failed;

  private DataDir(
      Path path,
      StorageProperties properties,
      FileStore fileStore,
      String device,
      long capacityBytes,
      long reservedBytes) {
    this.path = path;
    this.chunks = path.resolve(CHUNKS);
    this.properties = properties;
    this.fileStore = fileStore;
    this.device = device;
    this.capacityBytes = capacityBytes;
    this.reservedBytes = reservedBytes;
  }

  /**
   * Opens {@code path}, creating it if missing and formatting it if empty (nothing in it but
   * leftover temporary files).
   *
   * @throws IOException if it cannot be created or read, or holds something other than a Braid data
   *     directory
   */
  static DataDir open(Path path, StoreSettings settings) throws IOException {
    Files.createDirectories(path);
    Path file = path.resolve(StorageProperties.FILE_NAME);
    StorageProperties properties;
    if (Files.exists(file)) {
      properties = StorageProperties.load(path);
    } else if (isEmpty(path)) {
      properties = StorageProperties.fresh();
      properties.store(path);
      LOG.info("{}: formatted, storage id {}", path, properties.storageId());
    } else {
      throw new IOException(
          path + ": not empty and has no " + StorageProperties.FILE_NAME + "; not a data dir");
    }
    removeTemporaryFiles(path);
    Files.createDirectories(path.resolve(CHUNKS));
    FileStore fileStore = Files.getFileStore(path);
    long reserved = settings.reservedBytes();
    long total =
        settings.capacityBytes() > 0 ? settings.capacityBytes() : fileStore.getTotalSpace();
    DataDir dir =
        new DataDir(
            path, properties, fileStore, device(path), Math.max(0, total - reserved), reserved);
    dir.refreshSpace();
    return dir;
  }

  /**
   * The id of the device {@code path} is on ({@code st_dev}, as {@code "dev:2049"}), equal for
   * every directory on one file system of this machine; empty where the platform does not say (then
   * the directory counts as a file system of its own).
   */
  static String device(Path path) {
    try {
      Object dev = Files.getAttribute(path, "unix:dev");
      return dev instanceof Long d ? "dev:" + Long.toUnsignedString(d) : "";
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      LOG.debug("{}: no device id: {}", path, e.toString());
      return "";
    }
  }

  Path path() {
    return path;
  }

  Path chunksDir() {
    return chunks;
  }

  StorageProperties properties() {
    return properties;
  }

  /**
   * Persists {@code updated} as this directory's properties; a failure marks the directory failed.
   */
  void saveProperties(StorageProperties updated) throws IOException {
    try {
      updated.store(path);
    } catch (IOException e) {
      markFailed("write " + StorageProperties.FILE_NAME, e);
      throw e;
    }
    properties = updated;
  }

  /** The subdirectory for {@code key}'s files: two hex digits of the inode id's low byte. */
  Path subdir(ChunkKey key) {
    return chunks.resolve(String.format(Locale.ROOT, "%02x", key.inodeId() & 0xff));
  }

  Path dataPath(ChunkKey key) {
    return subdir(key).resolve(baseName(key) + ".data");
  }

  Path metaPath(ChunkKey key) {
    return subdir(key).resolve(baseName(key) + ".meta");
  }

  static String baseName(ChunkKey key) {
    return key.inodeId() + "_" + Integer.toUnsignedString(key.chunkIndex());
  }

  boolean failed() {
    return failed;
  }

  /**
   * Stops new replicas from going here. Logged at ERROR: an operator must replace the disk. The
   * caller passes the error on.
   */
  void markFailed(String operation, IOException cause) {
    if (!failed) {
      failed = true;
      LOG.error("{}: marked failed after '{}' failed: {}", path, operation, cause.toString());
    }
  }

  void addUsed(long delta) {
    usedBytes.addAndGet(delta);
  }

  long usedBytes() {
    return usedBytes.get();
  }

  long capacityBytes() {
    return capacityBytes;
  }

  /** Bytes new data may still use: within the capacity and what the file system has free. */
  long availableBytes() {
    if (System.nanoTime() - usableReadAt > SPACE_REFRESH_NANOS) {
      refreshSpace();
    }
    long byCapacity = capacityBytes - usedBytes.get();
    long byFileSystem = usableBytes - reservedBytes;
    return Math.max(0, Math.min(byCapacity, byFileSystem));
  }

  /** Reads the file system's usable space now (after a full disk, or once a second). */
  void refreshSpace() {
    try {
      usableBytes = fileStore.getUsableSpace();
    } catch (IOException e) {
      // Keep the last value: a disk that cannot report its space fails on the next write anyway.
      LOG.warn("{}: cannot read usable space: {}", path, e.toString());
    }
    usableReadAt = System.nanoTime();
  }

  DataDirStatus status() {
    return new DataDirStatus(
        path,
        properties.storageId(),
        device,
        capacityBytes,
        usedBytes.get(),
        availableBytes(),
        failed);
  }

  /** True if {@code dir} holds nothing but temporary files (left by an interrupted format). */
  private static boolean isEmpty(Path dir) throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        if (!isTemporary(entry)) {
          return false;
        }
      }
    }
    return true;
  }

  static boolean isTemporary(Path file) {
    return file.getFileName().toString().endsWith(StorageProperties.TMP_SUFFIX);
  }

  private static void removeTemporaryFiles(Path dir) throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path entry : entries) {
        if (isTemporary(entry) && Files.isRegularFile(entry)) {
          LOG.warn("{}: removing leftover temporary file {}", dir, entry.getFileName());
          Files.delete(entry);
        }
      }
    }
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
