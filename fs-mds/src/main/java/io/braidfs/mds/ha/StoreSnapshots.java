package io.braidfs.mds.ha;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.lifecycle.DaemonThreads;
import io.braidfs.mds.store.MetadataStore;
import io.braidfs.proto.HaSnapshotFile;
import io.braidfs.proto.HaSnapshotReadRequest;
import io.braidfs.proto.HaSnapshotReadResponse;
import io.braidfs.proto.HaSnapshotResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's side of bootstrapping another: copies of its store (RocksDB checkpoints, which
 * hard-link the store's files, so a copy costs a memtable flush, not the store's size) that a peer
 * reads file by file ({@link StoreBootstrap} is the reading side).
 *
 * <p>Copies live in {@code snapshots/} inside the store directory (hard links need the same file
 * system). A copy not read for {@code idle} is removed, at most {@link #MAX_COPIES} are kept, and
 * every copy is removed at start and close: a copy only matters while a peer reads it.
 *
 * <p>Thread-safety: thread-safe. Copies are made and read on this class's own thread ({@link
 * #executor}), never on an event loop: both do disk I/O.
 */
public final class StoreSnapshots implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StoreSnapshots.class);

  /** Copies kept at once; making another removes the least recently read. */
  static final int MAX_COPIES = 2;

  /** The most bytes one read returns: well under braid.rpc.frame.max-message's 4 MiB default. */
  public static final int MAX_READ = 1 << 20;

  private record Copy(String name, Path dir, long index, Map<String, Long> files) {}

  private final String id;
  private final Path root;
  private final MetadataStore store;
  private final Supplier<String> clusterId;
  private final Duration idle;
  private final ScheduledExecutorService thread;
  private final Map<String, Copy> copies = new LinkedHashMap<>();
  private final Map<String, Long> lastRead = new LinkedHashMap<>();
  private long made;

  /**
   * @param storeDir the store's RocksDB directory
   * @param clusterId the cluster the store belongs to, as copies report it
   */
  public StoreSnapshots(
      String id, Path storeDir, MetadataStore store, Supplier<String> clusterId, Duration idle) {
    this.id = id;
    this.root = storeDir.resolve("snapshots");
    this.store = store;
    this.clusterId = clusterId;
    this.idle = idle;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("braid-" + id + "-snapshots"));
    deleteTree(root); // copies of an earlier run: nobody reads them any more
    long every = Math.max(1_000, idle.toMillis() / 2);
    thread.scheduleWithFixedDelay(this::expire, every, every, TimeUnit.MILLISECONDS);
  }

  /** Where the copies are made and read. */
  public ScheduledExecutorService executor() {
    return thread;
  }

  /** Makes a copy of the store and lists its files. */
  public synchronized HaSnapshotResponse open() throws IOException {
    expire();
    while (copies.size() >= MAX_COPIES) {
      String oldest =
          lastRead.entrySet().stream().min(Map.Entry.comparingByValue()).orElseThrow().getKey();
      remove(oldest, "to make room for another");
    }
    Files.createDirectories(root);
    String name = Long.toString(++made) + "-" + System.currentTimeMillis();
    Path dir = root.resolve(name);
    long index = store.checkpoint(dir);
    Map<String, Long> files = new LinkedHashMap<>();
    HaSnapshotResponse.Builder r =
        HaSnapshotResponse.newBuilder()
            .setSnapshotId(name)
            .setAppliedIndex(index)
            .setClusterId(clusterId.get());
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.sorted().toList()) {
        if (Files.isRegularFile(p)) {
          long size = Files.size(p);
          files.put(p.getFileName().toString(), size);
          r.addFiles(HaSnapshotFile.newBuilder().setName(p.getFileName().toString()).setSize(size));
        }
      }
    }
    copies.put(name, new Copy(name, dir, index, files));
    lastRead.put(name, System.nanoTime());
    LOG.info(
        "{}: store copy {} at record {} made for a bootstrapping replica ({} files)",
        id,
        name,
        index,
        files.size());
    return r.build();
  }

  /**
   * Reads part of one file of a copy.
   *
   * @throws IOException NOT_FOUND for a copy or file that does not exist (removed, or never made)
   */
  public HaSnapshotReadResponse read(HaSnapshotReadRequest q) throws IOException {
    Copy c;
    synchronized (this) {
      c = copies.get(q.getSnapshotId());
      if (c != null) {
        lastRead.put(c.name(), System.nanoTime());
      }
    }
    if (c == null) {
      throw StatusExceptions.toIOException(
          Status.NOT_FOUND,
          id + ": no store copy " + q.getSnapshotId() + " (removed after " + idle + " idle?)");
    }
    // Only names the copy listed: a request cannot reach any other path.
    Long size = c.files().get(q.getName());
    if (size == null) {
      throw StatusExceptions.toIOException(
          Status.NOT_FOUND, id + ": store copy " + c.name() + " has no file '" + q.getName() + "'");
    }
    long offset = q.getOffset();
    if (offset < 0 || offset > size || q.getLength() < 0) {
      throw StatusExceptions.toIOException(
          Status.INVALID_ARGUMENT,
          id
              + ": cannot read "
              + Integer.toUnsignedString(q.getLength())
              + " bytes at "
              + Long.toUnsignedString(offset)
              + " of "
              + q.getName()
              + " ("
              + size
              + " bytes)");
    }
    int length = (int) Math.min(Math.min(q.getLength(), MAX_READ), size - offset);
    ByteBuffer buf = ByteBuffer.allocate(length);
    try (FileChannel ch = FileChannel.open(c.dir().resolve(q.getName()), StandardOpenOption.READ)) {
      while (buf.hasRemaining()) {
        if (ch.read(buf, offset + buf.position()) < 0) {
          break;
        }
      }
    }
    buf.flip();
    return HaSnapshotReadResponse.newBuilder().setData(ByteString.copyFrom(buf)).build();
  }

  private synchronized void expire() {
    long now = System.nanoTime();
    for (Map.Entry<String, Long> e : new ArrayList<>(lastRead.entrySet())) {
      if (now - e.getValue() > idle.toNanos()) {
        remove(e.getKey(), "after " + idle + " without a read");
      }
    }
  }

  private void remove(String name, String why) {
    Copy c = copies.remove(name);
    lastRead.remove(name);
    if (c != null) {
      deleteTree(c.dir());
      LOG.info("{}: store copy {} removed {}", id, name, why);
    }
  }

  @Override
  public synchronized void close() {
    thread.shutdownNow();
    copies.clear();
    lastRead.clear();
    deleteTree(root);
  }

  /** Deletes {@code dir} and everything in it; absent is fine. */
  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("cannot delete {}: {}", dir, e.toString());
    }
  }

  /** For tests: the copies kept now. */
  synchronized List<String> copies() {
    return List.copyOf(copies.keySet());
  }
}
