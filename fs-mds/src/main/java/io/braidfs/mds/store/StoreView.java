package io.braidfs.mds.store;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Reads over the column families of a {@link MetadataStore}: either its latest state (the store
 * itself) or a fixed point in time ({@link StoreSnapshot}).
 *
 * <p>Thread-safety: implementations are thread-safe.
 */
public interface StoreView {
  /**
   * The value of {@code key} in {@code family}, in a new array owned by the caller.
   *
   * @return the value, or null if the key is absent
   * @throws StoreException with {@code UNAVAILABLE} if the store or snapshot is closed
   * @throws IOException if RocksDB fails to read
   */
  byte @Nullable [] get(ColumnFamily family, byte[] key) throws IOException;

  /**
   * The entries of {@code family} whose key starts with {@code prefix}, in key order, starting
   * after the key {@code startAfter} (exclusive) and returning at most {@code limit} entries.
   * Paging with {@link ScanPage#cursor()} returns every key that exists throughout the paging
   * exactly once; keys added or removed between pages may or may not appear (use a {@link
   * StoreSnapshot} for a consistent listing).
   *
   * @param prefix the prefix every returned key starts with; empty for the whole family
   * @param startAfter null to start at the first key, or a key starting with {@code prefix}
   *     (usually the previous page's cursor)
   * @param limit the most entries to return, at least 1
   * @throws IllegalArgumentException if {@code limit < 1} or {@code startAfter} does not start with
   *     {@code prefix}
   * @throws StoreException with {@code UNAVAILABLE} if the store or snapshot is closed
   * @throws IOException if RocksDB fails to read
   */
  ScanPage scan(ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter, int limit)
      throws IOException;

  /**
   * The journal index of the last batch applied in this view, 0 if none: for the store, the latest
   * applied; for a snapshot, the one it was taken at.
   */
  long appliedIndex();
}
