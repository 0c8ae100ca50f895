package io.braidfs.dataserver.store;

import io.braidfs.common.error.StatusException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
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
 * <p>Failure: an I/O error on the directory (EIO, a read-only file system, a missing file) makes it
 * {@linkplain #ioError suspect}, and it is checked with a probe: a small file is created, written,
 * forced, read back and deleted, and the directory's properties file must still name its storage id
 * (an unmounted disk leaves an empty mount point behind, where a probe alone would pass). A
 * directory whose probe fails is {@linkplain #failed() failed} for good: no new replica goes there,
 * it reports no space, and its owner is told once so that it can drop its replicas.
 *
 * <p>Thread-safety: thread-safe. Properties are replaced only under the owning {@link ChunkStore}'s
 * identity lock; checks are serialized on the directory.
 */
final class DataDir {
  private static final Logger LOG = LoggerFactory.getLogger(DataDir.class);

  static final String CHUNKS = "chunks";
  static final long SPACE_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** After a probe passed, errors within this time do not probe again (a bad sector, say). */
  static final long PROBE_QUIET_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** The probe file's name; the temporary suffix makes start-up remove one a crash left. */
  static final String PROBE_FILE = ".braid-probe" + StorageProperties.TMP_SUFFIX;

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
  private volatile @Nullable Consumer<DataDir> onFailure;
  private final Object checkLock = new Object();
  private long lastProbePassed; // nanoTime, under checkLock; 0 before any probe

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

  /** Who is told, once, when the directory fails (the store drops its replicas). */
  void onFailure(Consumer<DataDir> listener) {
    onFailure = listener;
  }

  /**
   * Reports that {@code operation} on this directory failed with {@code cause}. An error that may
   * mean a failing disk (anything but Braid's own status errors, a full disk or a closed channel)
   * has the directory checked at once with a probe, on the calling thread; if the probe fails, the
   * directory is marked failed. Call it holding no replica's lock other than the failed one's.
   */
  void ioError(String operation, IOException cause) {
    if (failed || !mayBeDiskFailure(cause)) {
      return;
    }
    boolean nowFailed;
    synchronized (checkLock) {
      if (failed) {
        return;
      }
      long now = System.nanoTime();
      if (lastProbePassed != 0 && now - lastProbePassed < PROBE_QUIET_NANOS) {
        return;
      }
      IOException probe = probe();
      if (probe == null) {
        lastProbePassed = now;
        LOG.warn(
            "{}: '{}' failed ({}), but the directory passes its check; keeping it in service",
            path,
            operation,
            cause.toString());
        return;
      }
      nowFailed = setFailed(operation, cause, probe);
    }
    if (nowFailed) {
      notifyFailed(); // outside the check lock: the listener takes replica locks
    }
  }

  /**
   * Marks the directory failed without a probe (its properties file could not be written). Logged
   * at ERROR: an operator must replace the disk. The caller passes the error on.
   */
  void markFailed(String operation, IOException cause) {
    boolean nowFailed;
    synchronized (checkLock) {
      nowFailed = setFailed(operation, cause, null);
    }
    if (nowFailed) {
      notifyFailed();
    }
  }

  private boolean setFailed(String operation, IOException cause, @Nullable IOException probe) {
    if (failed) {
      return false;
    }
    failed = true;
    LOG.error(
        "{}: taken out of service after '{}' failed ({}){}; its replicas are reported lost",
        path,
        operation,
        cause.toString(),
        probe == null ? "" : " and so did the disk check (" + probe + ")");
    return true;
  }

  private void notifyFailed() {
    Consumer<DataDir> listener = onFailure;
    if (listener != null) {
      listener.accept(this);
    }
  }

  /**
   * Whether {@code e} may come from a failing disk: not a refusal of Braid's own (a status), not a
   * full disk (the space accounting handles that), not a channel closed by an interrupt or a
   * concurrent close.
   */
  static boolean mayBeDiskFailure(IOException e) {
    return !(e instanceof StatusException)
        && !FileIo.isDiskFull(e)
        && !(e instanceof ClosedChannelException);
  }

  /**
   * Checks that the directory still works: its properties file names its storage id, and a small
   * file can be created, written, forced, read back and deleted.
   *
   * @return null if it works, else the failure
   */
  @Nullable IOException probe() {
    Path file = path.resolve(PROBE_FILE);
    try {
      StorageProperties now = StorageProperties.load(path);
      if (!now.storageId().equals(properties.storageId())) {
        return new IOException(
            path + ": holds storage " + now.storageId() + ", not " + properties.storageId());
      }
      byte[] written = new byte[4096];
      ThreadLocalRandom.current().nextBytes(written);
      ByteBuffer back = ByteBuffer.allocate(written.length);
      try (FileChannel channel =
          FileChannel.open(
              file,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE)) {
        FileIo.writeFully(channel, ByteBuffer.wrap(written), 0);
        channel.force(true);
        FileIo.readFully(channel, back, 0, file);
      }
      Files.delete(file);
      if (!Arrays.equals(written, back.array())) {
        return new IOException(file + ": read back other bytes than were written");
      }
      return null;
    } catch (IOException e) {
      return e;
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
    if (failed) {
      return 0;
    }
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
