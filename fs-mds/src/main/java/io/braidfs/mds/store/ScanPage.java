package io.braidfs.mds.store;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page of a {@link StoreView#scan}: up to {@code limit} entries in key order, and whether more
 * follow. To read the next page, scan again with {@link #cursor()} as {@code startAfter}.
 *
 * <p>Thread-safety: immutable, provided nobody modifies the arrays of the entries (they are handed
 * over without copies, and the store keeps no reference to them).
 *
 * @param entries the entries, in key order
 * @param hasMore whether entries beyond the last one matched the scan when it was read
 */
public record ScanPage(List<Entry> entries, boolean hasMore) {
  /**
   * A page of {@code entries}.
   *
   * @throws NullPointerException if {@code entries} or an entry is null
   */
  public ScanPage {
    entries = List.copyOf(entries);
  }

  /** The key of the last entry, to pass as {@code startAfter} of the next page; null if empty. */
  public byte @Nullable [] cursor() {
    return entries.isEmpty() ? null : entries.get(entries.size() - 1).key();
  }

  /** The number of entries on this page. */
  public int size() {
    return entries.size();
  }

  /**
   * One key and its value. The arrays belong to the receiver of the page. Like every record of
   * arrays, {@code equals} compares the arrays' identity; compare contents with {@link
   * java.util.Arrays#equals(byte[], byte[])}.
   *
   * <p>Thread-safety: as {@link ScanPage}.
   *
   * @param key the full key, prefix included
   * @param value the value
   */
  public record Entry(byte[] key, byte[] value) {}
}
