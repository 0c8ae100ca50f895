package io.braidfs.mds.store;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.rocksdb.AbstractNativeReference;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.HistogramType;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;
import org.rocksdb.Statistics;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The only place that creates RocksDB native objects, each wrapped in a tracked {@link
 * ManagedNative}, and the register of those still open.
 *
 * <p>RocksDB objects hold C++ memory that the garbage collector never frees: an options object,
 * iterator or write batch that is not closed leaks, and one closed while in use crashes the JVM.
 * Every object this package creates therefore comes from a factory here and is closed by its
 * creator (try-with-resources for short-lived ones). The register costs one concurrent-set insert
 * and removal per object. With assertions enabled (every surefire run) or {@code
 * -Dbraid.natives.trace=true}, each object also records the stack that created it, and {@link
 * #leaks()} shows it; tests assert that {@link #leaks()} is empty after closing what they opened.
 * {@code ManagedNativesTest} checks that no other class of this package calls a RocksDB constructor
 * or factory directly.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ManagedNatives {
  /** Whether each object records the stack that created it. */
  static final boolean TRACE_OPENINGS =
      ManagedNatives.class.desiredAssertionStatus() || Boolean.getBoolean("braid.natives.trace");

  private static final Set<ManagedNative<?>> OPEN = ConcurrentHashMap.newKeySet();

  static {
    RocksDB.loadLibrary();
  }

  private ManagedNatives() {}

  /** The number of tracked native objects not yet closed, in this JVM. */
  public static int openCount() {
    return OPEN.size();
  }

  /**
   * A description of every tracked native object not yet closed: its type and, when traced, the
   * stack that created it. Empty when nothing leaked.
   */
  public static List<String> leaks() {
    List<String> out = new ArrayList<>();
    for (ManagedNative<?> n : OPEN) {
      Throwable openedAt = n.openedAt();
      if (openedAt == null) {
        out.add(n.type() + " (run with -ea or -Dbraid.natives.trace=true to see where it opened)");
      } else {
        StringWriter trace = new StringWriter();
        openedAt.printStackTrace(new PrintWriter(trace));
        out.add(trace.toString());
      }
    }
    return out;
  }

  static void untrack(ManagedNative<?> n) {
    OPEN.remove(n);
  }

  private static <T extends AbstractNativeReference> ManagedNative<T> track(T resource) {
    ManagedNative<T> n = new ManagedNative<>(resource, null);
    OPEN.add(n);
    return n;
  }

  // ---- factories ------------------------------------------------------------------------------

  static ManagedNative<DBOptions> dbOptions() {
    return track(new DBOptions());
  }

  static ManagedNative<ColumnFamilyOptions> columnFamilyOptions() {
    return track(new ColumnFamilyOptions());
  }

  static ManagedNative<WriteOptions> writeOptions() {
    return track(new WriteOptions());
  }

  static ManagedNative<ReadOptions> readOptions() {
    return track(new ReadOptions());
  }

  /**
   * A write batch holding {@code encoded}, a batch in RocksDB's format ({@link WriteBatchEncoder}).
   */
  static ManagedNative<WriteBatch> writeBatch(byte[] encoded) {
    return track(new WriteBatch(encoded));
  }

  /** A slice holding a copy of {@code bytes}. */
  static ManagedNative<Slice> slice(byte[] bytes) {
    return track(new Slice(bytes));
  }

  static ManagedNative<LRUCache> lruCache(long capacityBytes) {
    return track(new LRUCache(capacityBytes));
  }

  static ManagedNative<BloomFilter> bloomFilter(double bitsPerKey) {
    return track(new BloomFilter(bitsPerKey));
  }

  /**
   * Statistics with tickers only: the store reads one ticker ({@code WAL_FILE_SYNCED}), and
   * histograms would time and record every get and write (about 3% of the mutation thread).
   */
  static ManagedNative<Statistics> statistics() {
    return track(new Statistics(EnumSet.allOf(HistogramType.class)));
  }

  /**
   * Opens the database at {@code dir} with {@code families}, adding a tracked handle per family to
   * {@code handles}, in the order of {@code families}. Close the handles before the database.
   *
   * @throws RocksDBException if the database cannot be opened; nothing is left open then
   */
  static ManagedNative<RocksDB> open(
      DBOptions options,
      Path dir,
      List<ColumnFamilyDescriptor> families,
      List<ManagedNative<ColumnFamilyHandle>> handles)
      throws RocksDBException {
    List<ColumnFamilyHandle> raw = new ArrayList<>();
    ManagedNative<RocksDB> db = track(RocksDB.open(options, dir.toString(), families, raw));
    for (ColumnFamilyHandle h : raw) {
      handles.add(track(h));
    }
    return db;
  }

  /** An iterator over {@code family}; close it before {@code readOptions} and its slices. */
  static ManagedNative<RocksIterator> iterator(
      RocksDB db, ColumnFamilyHandle family, ReadOptions readOptions) {
    return track(db.newIterator(family, readOptions));
  }

  /** A snapshot of {@code db}; closing the wrapper releases it in {@code db}. */
  static ManagedNative<Snapshot> snapshot(RocksDB db) {
    Snapshot s = db.getSnapshot();
    ManagedNative<Snapshot> n = new ManagedNative<>(s, () -> db.releaseSnapshot(s));
    OPEN.add(n);
    return n;
  }

  static ManagedNative<Checkpoint> checkpoint(RocksDB db) {
    return track(Checkpoint.create(db));
  }
}
