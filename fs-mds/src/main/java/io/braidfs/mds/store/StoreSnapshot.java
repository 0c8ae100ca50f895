package io.braidfs.mds.store;

/**
 * A consistent, read-only view of a {@link MetadataStore} at one point in time, across every column
 * family: later batches are not visible through it. It pins memory and disk space in RocksDB until
 * closed, so close it promptly (try-with-resources); the store closes any still open when it
 * closes.
 *
 * <p>Thread-safety: thread-safe; reads after {@link #close()} fail with {@link StoreException}.
 */
public interface StoreSnapshot extends StoreView, AutoCloseable {
  /** Releases the snapshot; idempotent, never throws. */
  @Override
  void close();
}
