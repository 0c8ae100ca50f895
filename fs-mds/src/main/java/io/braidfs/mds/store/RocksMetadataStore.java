package io.braidfs.mds.store;

import static java.util.Objects.requireNonNull;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.common.error.Status;
import io.braidfs.common.lifecycle.LifeCycle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.rocksdb.Checkpoint;
import org.rocksdb.RocksDBException;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link MetadataStore} in one RocksDB, with a column family per {@link ColumnFamily} ({@link
 * RocksDatabase} holds the open database and its native objects).
 *
 * <p>Design. A batch (or a group of them) becomes one RocksDB {@code WriteBatch} holding its puts
 * and deletes, only the last of each key ({@link LastWrites}), and the new applied index ({@code
 * meta/applied-index}, u64 big-endian), encoded in Java ({@link WriteBatchEncoder}) and written
 * with {@code sync} per {@code braid.mds.store.sync} or as the caller asks; RocksDB makes it atomic
 * across column families and across a crash, so the applied index on disk always names the last
 * batch whose writes are there. Writes are serialized by {@code writeLock}, which also makes the
 * applied-index check and the write one step. {@link #syncWal()} does not take {@code writeLock}:
 * RocksDB syncs the WAL concurrently with writes, which is what lets the journal's sync thread
 * share one sync among the mutations written meanwhile. A failed sync fails the store as a failed
 * write does. RocksDB native objects must never be freed while a call uses them (that crashes the
 * JVM), so every operation holds {@code openLock} shared, and {@code start} and {@code close} hold
 * it exclusively; {@code close} waits at most {@link #CLOSE_WAIT} and, if operations are still
 * running then, leaves RocksDB open rather than freeing it under them. Snapshots add their own lock
 * with the same shape, always taken after {@code openLock}. The first failed write records the
 * failure: from then on every write is refused, because the database may hold a batch that its
 * caller was told failed (the journal and the store diverged), and the MDS must stop.
 *
 * <p>Why it is long: the two locks and the write-failure latch described above guard every
 * operation (reads, writes, WAL syncs, checkpoints, snapshots, close), so those operations stay in
 * the class that owns them; opening the database, reading it, encoding batches and holding
 * snapshots are already {@code RocksDatabase}, {@code RocksReads}, {@code WriteBatchEncoder} and
 * {@code RocksSnapshot}.
 *
 * <p>Thread-safety: thread-safe. Reads run concurrently; writes, checkpoints and snapshots'
 * creation hold {@code writeLock} or {@code openLock} only for their own duration.
 */
public final class RocksMetadataStore implements MetadataStore {
  private static final Logger LOG = LoggerFactory.getLogger(RocksMetadataStore.class);

  /** The longest {@link #close()} waits for running operations. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  private final String id;
  private final StoreOptions options;
  private final Consumer<? super StoreException> onWriteFailure;
  private final LifeCycle lifeCycle;

  /** Shared by every operation on RocksDB; exclusive in start and close. */
  private final ReentrantReadWriteLock openLock = new ReentrantReadWriteLock();

  /** Serializes writes and checkpoints; taken after {@code openLock}. */
  private final ReentrantLock writeLock = new ReentrantLock();

  /**
   * The open database; assigned under openLock's write lock, read under either. (Error Prone does
   * not check a ReadWriteLock guard: this annotation only documents.)
   */
  @GuardedBy("openLock")
  private @Nullable RocksDatabase database;

  /** Encodes each write's batch. */
  @GuardedBy("writeLock")
  private final WriteBatchEncoder encoder = new WriteBatchEncoder();

  private final Set<RocksSnapshot> snapshots = ConcurrentHashMap.newKeySet();
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong syncs = new AtomicLong();
  private volatile long appliedIndex;
  private volatile @Nullable StoreException writeFailure;
  private volatile @Nullable RocksDBException injectedFault;
  private volatile @Nullable RocksDBException injectedSyncFault;

  /**
   * A store in {@code options.dir()} that logs a failed write and refuses further writes.
   *
   * @param id the MDS id, used in logs and messages
   * @throws IllegalArgumentException if {@code id} is empty
   */
  public RocksMetadataStore(String id, StoreOptions options) {
    this(id, options, failure -> {});
  }

  /**
   * A store in {@code options.dir()} that also tells {@code onWriteFailure} about the first failed
   * write, once, on the writing thread after the store's locks are released (the MDS stops there;
   * it may close the store from the listener).
   *
   * @param id the MDS id, used in logs and messages
   * @throws IllegalArgumentException if {@code id} is empty
   */
  public RocksMetadataStore(
      String id, StoreOptions options, Consumer<? super StoreException> onWriteFailure) {
    if (id.isEmpty()) {
      throw new IllegalArgumentException("store id must not be empty");
    }
    this.id = id;
    this.options = options;
    this.onWriteFailure = onWriteFailure;
    this.lifeCycle = new LifeCycle(id + "-store");
  }

  /** The id given at construction. */
  public String id() {
    return id;
  }

  /**
   * Opens (creating if missing) the database and its column families and reads the applied index.
   */
  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    IOException failure = null;
    openLock.writeLock().lock();
    try {
      RocksDatabase opened = RocksDatabase.open(options);
      database = opened;
      appliedIndex = readAppliedIndex(opened, null);
    } catch (RocksDBException e) {
      failure =
          String.valueOf(e.getMessage()).contains("/LOCK:")
              // RocksDB's words: "While lock file: DIR/LOCK: Resource temporarily unavailable",
              // or "lock hold by current process ... DIR/LOCK: No locks available".
              ? new IOException(
                  id
                      + ": the store "
                      + options.dir()
                      + " is in use by another server (an MDS or braid local running on it);"
                      + " stop it, or give this one another directory",
                  e)
              : new IOException(id + ": cannot open " + options.dir() + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      failure = new IOException(id + ": cannot open " + options.dir() + ": " + e.getMessage(), e);
    } catch (IOException e) {
      failure = e;
    } finally {
      openLock.writeLock().unlock();
    }
    if (failure != null) {
      lifeCycle.failed();
      close();
      throw failure;
    }
    lifeCycle.running();
    LOG.info(
        "{}: opened {} at applied index {} (sync={}, block cache {})",
        id,
        options.dir(),
        appliedIndex,
        options.sync(),
        options.blockCache());
  }

  // ---- reads ----------------------------------------------------------------------------------

  @Override
  public byte @Nullable [] get(ColumnFamily family, byte[] key) throws IOException {
    return getAt(null, family, key);
  }

  @Override
  public ScanPage scan(ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter, int limit)
      throws IOException {
    return scanAt(null, family, prefix, startAfter, limit);
  }

  @Override
  public long appliedIndex() {
    return appliedIndex;
  }

  byte @Nullable [] getAt(@Nullable RocksSnapshot at, ColumnFamily family, byte[] key)
      throws IOException {
    return read("get", family, at, (d, s) -> RocksReads.get(d.db(), d.handle(family), s, key));
  }

  ScanPage scanAt(
      @Nullable RocksSnapshot at,
      ColumnFamily family,
      byte[] prefix,
      byte @Nullable [] startAfter,
      int limit)
      throws IOException {
    RocksReads.checkScan(prefix, startAfter, limit);
    return requireNonNull( // a scan answers a page, never null
        read(
            "scan",
            family,
            at,
            (d, s) -> RocksReads.scan(d.db(), d.handle(family), s, prefix, startAfter, limit)));
  }

  /** One read against RocksDB, at the latest state or at {@code at}. */
  @FunctionalInterface
  private interface Read<T> {
    @Nullable T run(RocksDatabase database, @Nullable Snapshot snapshot) throws RocksDBException;
  }

  private <T> @Nullable T read(
      String op, ColumnFamily family, @Nullable RocksSnapshot at, Read<T> read) throws IOException {
    Lock shared = enter(op);
    try {
      if (at == null) {
        return read.run(database(), null);
      }
      Lock held = at.enter();
      try {
        return read.run(database(), at.snapshot());
      } finally {
        held.unlock();
      }
    } catch (RocksDBException e) {
      throw new IOException(id + ": " + op + " in " + family.cfName() + " failed: " + e, e);
    } finally {
      shared.unlock();
    }
  }

  @Override
  public StoreSnapshot snapshot() throws IOException {
    Lock shared = enter("snapshot");
    try {
      ManagedNative<Snapshot> s = ManagedNatives.snapshot(database().db());
      try {
        RocksSnapshot snapshot = new RocksSnapshot(this, s, readAppliedIndex(database(), s.get()));
        snapshots.add(snapshot);
        return snapshot;
      } catch (RocksDBException | RuntimeException e) {
        s.close();
        throw new IOException(id + ": cannot read the applied index of a snapshot: " + e, e);
      }
    } finally {
      shared.unlock();
    }
  }

  /** Releases {@code s} unless the store already did (on close). */
  void closeSnapshot(RocksSnapshot s) {
    openLock.readLock().lock();
    try {
      if (snapshots.remove(s)) {
        s.release();
      }
    } finally {
      openLock.readLock().unlock();
    }
  }

  private long readAppliedIndex(RocksDatabase d, @Nullable Snapshot s) throws RocksDBException {
    byte[] value = RocksReads.get(d.db(), d.handle(ColumnFamily.META), s, Keys.APPLIED_INDEX_KEY);
    if (value == null) {
      return 0;
    }
    if (value.length != Keys.U64_BYTES) {
      throw new IllegalStateException(
          id + ": meta/" + Keys.APPLIED_INDEX + " has " + value.length + " bytes, not 8");
    }
    return Keys.readU64(value, 0);
  }

  // ---- writes ---------------------------------------------------------------------------------

  @Override
  public void applyAll(List<StoreBatch> batches, long firstIndex) throws IOException {
    applyAll(batches, firstIndex, options.sync());
  }

  @Override
  public void applyAll(List<StoreBatch> batches, long firstIndex, boolean sync) throws IOException {
    if (batches.isEmpty()) {
      throw new IllegalArgumentException(id + ": nothing to apply at journal index " + firstIndex);
    }
    if (firstIndex > Long.MAX_VALUE - (batches.size() - 1)) {
      throw new IllegalArgumentException(id + ": journal index overflow at " + firstIndex);
    }
    long lastIndex = firstIndex + batches.size() - 1;
    StoreException failed;
    Lock shared = enter("apply");
    try {
      writeLock.lock();
      try {
        StoreException earlier = writeFailure;
        if (earlier != null) {
          throw new StoreException(
              Status.UNAVAILABLE, id + ": writes refused after a failed write", earlier);
        }
        if (firstIndex <= appliedIndex) {
          throw new IllegalArgumentException(
              id + ": journal index " + firstIndex + " is not after applied " + appliedIndex);
        }
        failed = write(batches, firstIndex, lastIndex, sync);
        if (failed == null) {
          appliedIndex = lastIndex;
          return;
        }
        writeFailure = failed;
      } finally {
        writeLock.unlock();
      }
    } finally {
      shared.unlock();
    }
    // Outside the locks: the listener may close this store.
    LOG.error(
        "{}: write of journal indexes {}..{} failed; refusing further writes, the MDS must stop",
        id,
        firstIndex,
        lastIndex,
        failed.getCause());
    tellWriteFailure(failed);
    throw failed;
  }

  @Override
  public void syncWal() throws IOException {
    StoreException failed;
    Lock shared = enter("sync");
    try {
      StoreException earlier = writeFailure;
      if (earlier != null) {
        throw new StoreException(
            Status.UNAVAILABLE, id + ": WAL sync refused after a failed write", earlier);
      }
      try {
        RocksDBException fault = injectedSyncFault;
        if (fault != null) {
          injectedSyncFault = null;
          throw fault;
        }
        database().db().syncWal();
        syncs.incrementAndGet();
        return;
      } catch (RocksDBException | RuntimeException e) {
        failed = new StoreException(Status.UNAVAILABLE, id + ": WAL sync failed: " + e, e);
      }
      writeLock.lock(); // waits for a running write, so writeFailure changes under writeLock only
      try {
        if (writeFailure != null) {
          throw failed; // a write failed meanwhile and was reported
        }
        writeFailure = failed;
      } finally {
        writeLock.unlock();
      }
    } finally {
      shared.unlock();
    }
    LOG.error(
        "{}: WAL sync failed at applied index {}; refusing further writes, the MDS must stop",
        id,
        appliedIndex,
        failed.getCause());
    tellWriteFailure(failed);
    throw failed;
  }

  /** Tells the listener about the store's failure; outside the locks, it may close the store. */
  private void tellWriteFailure(StoreException failed) {
    try {
      onWriteFailure.accept(failed);
    } catch (RuntimeException e) {
      LOG.warn("{}: the write-failure listener failed", id, e);
    }
  }

  /**
   * Writes the batches and the applied index in one WriteBatch, encoded in Java and handed to
   * RocksDB in one call; returns the failure, if any.
   */
  @GuardedBy("writeLock")
  private @Nullable StoreException write(
      List<StoreBatch> batches, long firstIndex, long lastIndex, boolean sync) {
    RocksDatabase d = database();
    encoder.clear();
    try {
      for (StoreBatch.Op op : LastWrites.of(batches)) {
        int family = d.familyId(op.family());
        byte[] value = op.value();
        if (value == null) {
          encoder.delete(family, op.key());
        } else {
          encoder.put(family, op.key(), value);
        }
      }
      encoder.put(d.familyId(ColumnFamily.META), Keys.APPLIED_INDEX_KEY, Keys.u64(lastIndex));
      RocksDBException fault = injectedFault;
      if (fault != null) {
        injectedFault = null;
        throw fault;
      }
      // One JNI call for the whole batch (WriteBatchEncoder).
      try (ManagedNative<WriteBatch> batch = ManagedNatives.writeBatch(encoder.toBytes())) {
        d.db().write(d.writeOptions(sync), batch.get());
      }
      writes.incrementAndGet();
      return null;
    } catch (RocksDBException | RuntimeException e) {
      // Any failure here, not only RocksDB's own, leaves the store refusing writes, so the MDS
      // stops rather than acknowledging on top of an unknown state.
      return new StoreException(
          Status.UNAVAILABLE,
          id + ": write of journal indexes " + firstIndex + ".." + lastIndex + " failed: " + e,
          e);
    }
  }

  @Override
  public long checkpoint(Path target) throws IOException {
    if (Files.exists(target)) {
      throw new IOException(id + ": checkpoint target " + target + " already exists");
    }
    Lock shared = enter("checkpoint");
    try {
      writeLock.lock(); // no write between the copy and the index it reports
      long started = System.nanoTime();
      try (ManagedNative<Checkpoint> checkpoint = ManagedNatives.checkpoint(database().db())) {
        checkpoint.get().createCheckpoint(target.toString());
        long index = appliedIndex;
        LOG.info(
            "{}: checkpoint at applied index {} written to {} in {} ms",
            id,
            index,
            target,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        return index;
      } catch (RocksDBException e) {
        throw new IOException(id + ": checkpoint into " + target + " failed: " + e, e);
      } finally {
        writeLock.unlock();
      }
    } finally {
      shared.unlock();
    }
  }

  @Override
  public boolean isWritable() {
    return lifeCycle.isRunning() && writeFailure == null;
  }

  // ---- observation and test hooks --------------------------------------------------------------

  /** Successful writes (each of one or more batches) since start. */
  public long writeCount() {
    return writes.get();
  }

  /** Successful {@link #syncWal()} calls since start (synced writes not included). */
  public long syncWalCount() {
    return syncs.get();
  }

  /**
   * WAL syncs RocksDB performed since start (its {@code WAL_FILE_SYNCED} ticker); 0 when the store
   * is not running.
   */
  public long walSyncCount() {
    openLock.readLock().lock();
    try {
      RocksDatabase d = database;
      return lifeCycle.isRunning() && d != null ? d.walSyncs() : 0;
    } finally {
      openLock.readLock().unlock();
    }
  }

  /**
   * Makes the next write fail with {@code fault} after its batch is encoded and before RocksDB sees
   * it, as an I/O error would; a per-instance fault hook for tests.
   */
  void failNextWrite(RocksDBException fault) {
    injectedFault = fault;
  }

  /**
   * Makes the next {@link #syncWal()} fail with {@code fault} before RocksDB syncs, as an I/O error
   * would; a per-instance fault hook for tests.
   */
  void failNextSync(RocksDBException fault) {
    injectedSyncFault = fault;
  }

  // ---- life cycle -----------------------------------------------------------------------------

  /**
   * Releases open snapshots, then the column families, the database and its options, in reverse
   * order of creation. Waits at most {@link #CLOSE_WAIT} for running operations.
   */
  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      return;
    }
    Lock exclusive = openLock.writeLock();
    boolean locked = false;
    try {
      locked = exclusive.tryLock(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!locked) {
      LOG.error("{}: operations still running after {}; RocksDB left open", id, CLOSE_WAIT);
      lifeCycle.closed();
      return;
    }
    try {
      for (RocksSnapshot s : snapshots) {
        s.release();
      }
      snapshots.clear();
      RocksDatabase d = database;
      database = null;
      if (d != null) {
        d.close();
      }
    } finally {
      exclusive.unlock();
    }
    lifeCycle.closed();
    LOG.info("{}: closed {} at applied index {}", id, options.dir(), appliedIndex);
  }

  /** Takes {@code openLock} shared, failing if the store is not running. */
  private Lock enter(String op) throws StoreException {
    Lock shared = openLock.readLock();
    shared.lock();
    if (!lifeCycle.isRunning()) {
      shared.unlock();
      throw new StoreException(
          Status.UNAVAILABLE, id + ": " + op + " refused, the store is " + lifeCycle.state(), null);
    }
    return shared;
  }

  /** The database; only while {@code openLock} is held and the store runs. */
  private RocksDatabase database() {
    RocksDatabase d = database;
    if (d == null) {
      throw new IllegalStateException(id + ": the database is not open");
    }
    return d;
  }

  @Override
  public String toString() {
    return "RocksMetadataStore[" + id + ", " + options.dir() + ", " + lifeCycle.state() + "]";
  }
}
