package io.braidfs.mds.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * A fake {@link MetadataStore} for tests: a real store whose {@link #applyAll} first takes a permit
 * from a gate, so a test can hold the group-commit writer at a known point and let queues fill
 * behind it. The gate starts open (unlimited); {@link #hold(int)} replaces it with one holding
 * {@code n} permits.
 *
 * <p>Thread-safety: thread-safe.
 */
final class GatedStore implements MetadataStore {
  private final MetadataStore delegate;
  private volatile @Nullable Semaphore gate;

  GatedStore(MetadataStore delegate) {
    this.delegate = delegate;
  }

  /** From now on, let only {@code permits} writes through until {@link #release(int)}. */
  void hold(int permits) {
    gate = new Semaphore(permits);
  }

  /** Lets {@code permits} more writes through. */
  void release(int permits) {
    Semaphore g = gate;
    if (g != null) {
      g.release(permits);
    }
  }

  /** Opens the gate for good. */
  void openGate() {
    Semaphore g = gate;
    gate = null;
    if (g != null) {
      g.release(Integer.MAX_VALUE / 2);
    }
  }

  /** Whether a writer is waiting at the gate. */
  boolean writerWaiting() {
    Semaphore g = gate;
    return g != null && g.hasQueuedThreads();
  }

  @Override
  public void applyAll(List<StoreBatch> batches, long firstIndex) throws IOException {
    Semaphore g = gate;
    if (g != null) {
      g.acquireUninterruptibly();
    }
    delegate.applyAll(batches, firstIndex);
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
