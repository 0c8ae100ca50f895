package io.braidfs.mds.store;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;

/**
 * Point reads and paged prefix scans over one column family, at the latest state or at a snapshot;
 * shared by {@link RocksMetadataStore} and {@link RocksSnapshot}. Callers hold whatever keeps the
 * database, handle and snapshot open for the duration of the call.
 *
 * <p>Thread-safety: stateless.
 */
final class RocksReads {
  /** Entries a page preallocates room for; a larger limit grows the list as entries arrive. */
  private static final int INITIAL_PAGE_CAPACITY = 256;

  private RocksReads() {}

  static byte @Nullable [] get(
      RocksDB db, ColumnFamilyHandle family, @Nullable Snapshot snapshot, byte[] key)
      throws RocksDBException {
    if (snapshot == null) {
      return db.get(family, key);
    }
    try (ManagedNative<ReadOptions> ro = ManagedNatives.readOptions()) {
      ro.get().setSnapshot(snapshot);
      return db.get(family, ro.get(), key);
    }
  }

  /** Checks the arguments of {@link StoreView#scan} before any lock is taken. */
  static void checkScan(byte[] prefix, byte @Nullable [] startAfter, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("scan limit must be >= 1: " + limit);
    }
    if (startAfter != null && !Keys.startsWith(startAfter, prefix)) {
      throw new IllegalArgumentException("scan cursor does not start with the scanned prefix");
    }
  }

  /**
   * The scan of {@link StoreView#scan}: seeks to the successor of the cursor (or to the prefix) and
   * reads until {@code limit} entries or the exclusive upper bound {@link Keys#prefixEnd}, which
   * RocksDB enforces itself so that the iterator never visits the next directory's entries. One
   * entry beyond the limit is peeked at (not copied) to tell whether more follow.
   */
  static ScanPage scan(
      RocksDB db,
      ColumnFamilyHandle family,
      @Nullable Snapshot snapshot,
      byte[] prefix,
      byte @Nullable [] startAfter,
      int limit)
      throws RocksDBException {
    byte[] end = Keys.prefixEnd(prefix);
    byte[] start = startAfter == null ? prefix : Keys.successor(startAfter);
    try (ManagedNative<ReadOptions> ro = ManagedNatives.readOptions();
        ManagedNative<Slice> upper = end == null ? null : ManagedNatives.slice(end)) {
      ReadOptions options = ro.get();
      if (upper != null) {
        options.setIterateUpperBound(upper.get());
      }
      if (snapshot != null) {
        options.setSnapshot(snapshot);
      }
      try (ManagedNative<RocksIterator> managed = ManagedNatives.iterator(db, family, options)) {
        RocksIterator it = managed.get();
        List<ScanPage.Entry> entries = new ArrayList<>(Math.min(limit, INITIAL_PAGE_CAPACITY));
        for (it.seek(start); it.isValid() && entries.size() < limit; it.next()) {
          entries.add(new ScanPage.Entry(it.key(), it.value()));
        }
        boolean more = it.isValid();
        it.status(); // an iterator that stopped early on an I/O error is not the end of the range
        return new ScanPage(entries, more);
      }
    }
  }
}
