package io.braidfs.mds.store;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.common.error.Status;
import java.io.IOException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.jspecify.annotations.Nullable;
import org.rocksdb.Snapshot;

/**
 * A {@link StoreSnapshot} of a {@link RocksMetadataStore}: a RocksDB snapshot that every read of
 * this view passes in its {@code ReadOptions}. Reads hold {@code lock} shared (after the store's
 * own lock), and release holds it exclusively, so the snapshot is never released under a read.
 *
 * <p>Thread-safety: thread-safe.
 */
final class RocksSnapshot implements StoreSnapshot {
  private final RocksMetadataStore store;
  private final ManagedNative<Snapshot> snapshot;
  private final long appliedIndex;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  @GuardedBy("lock") // documents only: Error Prone does not check ReadWriteLock guards
  private boolean released;

  RocksSnapshot(RocksMetadataStore store, ManagedNative<Snapshot> snapshot, long appliedIndex) {
    this.store = store;
    this.snapshot = snapshot;
    this.appliedIndex = appliedIndex;
  }

  @Override
  public byte @Nullable [] get(ColumnFamily family, byte[] key) throws IOException {
    return store.getAt(this, family, key);
  }

  @Override
  public ScanPage scan(ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter, int limit)
      throws IOException {
    return store.scanAt(this, family, prefix, startAfter, limit);
  }

  @Override
  public long appliedIndex() {
    return appliedIndex;
  }

  @Override
  public void close() {
    store.closeSnapshot(this);
  }

  /** Takes the lock shared, failing if the snapshot was released; the caller unlocks. */
  Lock enter() throws StoreException {
    Lock shared = lock.readLock();
    shared.lock();
    if (released) {
      shared.unlock();
      throw new StoreException(Status.UNAVAILABLE, "snapshot " + this + " is closed", null);
    }
    return shared;
  }

  /** The RocksDB snapshot; only between {@link #enter()} and the unlock. */
  Snapshot snapshot() {
    return snapshot.get();
  }

  /** Releases the RocksDB snapshot once; the caller holds the store's lock. */
  void release() {
    lock.writeLock().lock();
    try {
      if (!released) {
        released = true;
        snapshot.close();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public String toString() {
    return "StoreSnapshot[applied index " + appliedIndex + "]";
  }
}
