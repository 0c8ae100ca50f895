package io.braidfs.mds.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * A fake {@link MetadataStore} for tests: a real store whose {@link #syncWal()} first takes a
 * permit from a gate, so a test can hold a sync thread at a known point and let writes pile up
 * behind it. The gate starts open (unlimited); {@link #hold(int)} replaces it with one holding
 * {@code n} permits. Writes ({@link #applyAll}) have a gate of their own, {@link #holdWrites(int)},
 * also open at first.
 *
 * <p>Public for the journal's tests.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class GatedStore implements MetadataStore {
  private final MetadataStore delegate;
  private volatile @Nullable Semaphore gate;
  private volatile @Nullable Semaphore writeGate;

  public GatedStore(MetadataStore delegate) {
    this.delegate = delegate;
  }

  /** From now on, let only {@code permits} syncs through until {@link #release(int)}. */
  public void hold(int permits) {
    gate = new Semaphore(permits);
  }

  /** Lets {@code permits} more syncs through. */
  public void release(int permits) {
    Semaphore g = gate;
    if (g != null) {
      g.release(permits);
    }
  }

  /** Opens the gate for good. */
  public void openGate() {
    Semaphore g = gate;
    gate = null;
    if (g != null) {
      g.release(Integer.MAX_VALUE / 2);
    }
  }

  /** Whether a sync is waiting at the gate. */
  public boolean syncWaiting() {
    Semaphore g = gate;
    return g != null && g.hasQueuedThreads();
  }

  /** From now on, let only {@code permits} writes through until {@link #openWriteGate()}. */
  public void holdWrites(int permits) {
    writeGate = new Semaphore(permits);
  }

  /** Opens the write gate for good. */
  public void openWriteGate() {
    Semaphore g = writeGate;
    writeGate = null;
    if (g != null) {
      g.release(Integer.MAX_VALUE / 2);
    }
  }

  /** Whether a write is waiting at the write gate. */
  public boolean writeWaiting() {
    Semaphore g = writeGate;
    return g != null && g.hasQueuedThreads();
  }

  private void passWriteGate() {
    Semaphore g = writeGate;
    if (g != null) {
      g.acquireUninterruptibly();
    }
  }

  @Override
  public void syncWal() throws IOException {
    Semaphore g = gate;
    if (g != null) {
      g.acquireUninterruptibly();
    }
    delegate.syncWal();
  }

  @Override
  public void applyAll(List<StoreBatch> batches, long firstIndex) throws IOException {
    passWriteGate();
    delegate.applyAll(batches, firstIndex);
  }

  @Override
  public void applyAll(List<StoreBatch> batches, long firstIndex, boolean sync) throws IOException {
    passWriteGate();
    delegate.applyAll(batches, firstIndex, sync);
  }

  @Override
  public byte @Nullable [] get(ColumnFamily family, byte[] key) throws IOException {
    return delegate.get(family, key);
  }

  @Override
  public ScanPage scan(ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter, int limit)
      throws IOException {
    return delegate.scan(family, prefix, startAfter, limit);
  }

  @Override
  public long appliedIndex() {
    return delegate.appliedIndex();
  }

  @Override
  public StoreSnapshot snapshot() throws IOException {
    return delegate.snapshot();
  }

  @Override
  public long checkpoint(Path target) throws IOException {
    return delegate.checkpoint(target);
  }

  @Override
  public boolean isWritable() {
    return delegate.isWritable();
  }

  @Override
  public void start() throws IOException {
    delegate.start();
  }

  @Override
  public void close() {
    openGate();
    delegate.close();
  }
}
