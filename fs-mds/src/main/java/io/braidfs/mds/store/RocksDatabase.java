package io.braidfs.mds.store;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.rocksdb.AbstractNativeReference;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An open RocksDB and every native object it needs: a column family per {@link ColumnFamily} (plus
 * RocksDB's unused {@code default}), one block cache shared by all of them and one Bloom filter by
 * all but the journal family, statistics, and the store's two {@code WriteOptions} (synced and
 * not). {@link #close()} frees them in reverse order of creation: column family handles, then the
 * database, then the options it was opened with.
 *
 * <p>Thread-safety: the accessors may be called from any thread while the database is open; the
 * owner ({@link RocksMetadataStore}) makes sure nothing uses it during or after {@link #close()}.
 */
final class RocksDatabase implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RocksDatabase.class);

  /** Bloom filter bits per key: about 1% false positives on inode and entry lookups. */
  private static final double BLOOM_BITS_PER_KEY = 10;

  /**
   * Memtable size of a family not in {@link #LARGER_WRITE_BUFFERS} (RocksDB's default is 64 MiB).
   * Every mutation inserts about a dozen keys; in smaller skip lists each insert costs less and
   * flushes are short, and creates with 16 callers ran steadier and faster with 8 MiB
   * (docs/benchmarks.md). Metadata values are small, so 8 MiB still holds tens of thousands of
   * mutations.
   */
  private static final long WRITE_BUFFER_BYTES = 8L << 20;

  /**
   * Larger memtables for the families that grow fastest. All families flush together (atomic flush,
   * below), each time one memtable is full: the journal family (every record's whole batch, about 1
   * KiB per create) and the retry cache (about 400 bytes per create) would otherwise set that pace,
   * every 8,000 creates or so, making many small files of every family for compaction. With these,
   * the inode and chunk families set it, about every 35,000 creates.
   */
  private static final Map<ColumnFamily, Long> LARGER_WRITE_BUFFERS =
      Map.of(ColumnFamily.JOURNAL, 64L << 20, ColumnFamily.RETRY, 32L << 20);

  /** The memtable Bloom filter's size as a fraction of the memtable's: 400 KiB per 8 MiB. */
  private static final double MEMTABLE_BLOOM_RATIO = 0.05;

  /** Info-log files RocksDB keeps in the store directory. */
  private static final int KEEP_INFO_LOGS = 4;

  /** Finished WAL files kept for reuse instead of deleted (see {@link #openIn}). */
  private static final int RECYCLED_WAL_FILES = 4;

  /** In order of creation. */
  private final Deque<ManagedNative<?>> natives = new ArrayDeque<>();

  private final Map<ColumnFamily, ColumnFamilyHandle> families = new EnumMap<>(ColumnFamily.class);

  /** Each family's RocksDB id, by ordinal: asking the handle is a JNI call. */
  private final int[] familyIds = new int[ColumnFamily.values().length];

  // Set by openIn, before open() hands the database out.
  private @Nullable RocksDB db;
  private @Nullable WriteOptions syncedWrites;
  private @Nullable WriteOptions unsyncedWrites;
  private @Nullable Statistics statistics;

  private RocksDatabase() {}

  /**
   * Opens the database in {@code options.dir()}, creating the directory, the database and missing
   * column families.
   *
   * @throws IOException if the directory cannot be created
   * @throws RocksDBException if RocksDB cannot open the database (locked by another process,
   *     corrupt, unknown column families); nothing is left open then
   */
  static RocksDatabase open(StoreOptions options) throws IOException, RocksDBException {
    RocksDatabase d = new RocksDatabase();
    try {
      d.openIn(options);
      return d;
    } catch (IOException | RocksDBException | RuntimeException e) {
      d.close();
      throw e;
    }
  }

  private void openIn(StoreOptions options) throws IOException, RocksDBException {
    Files.createDirectories(options.dir());
    LRUCache cache = keep(ManagedNatives.lruCache(options.blockCache().toBytes()));
    BloomFilter bloom = keep(ManagedNatives.bloomFilter(BLOOM_BITS_PER_KEY));
    ColumnFamilyOptions cfOptions = familyOptions(WRITE_BUFFER_BYTES, cache, bloom, true);
    Statistics stats = keep(ManagedNatives.statistics());
    DBOptions dbOptions =
        keep(ManagedNatives.dbOptions())
            .setCreateIfMissing(true)
            // A family added by a newer release is created when an older database is opened.
            .setCreateMissingColumnFamilies(true)
            // The journal relies on both (RocksDB's defaults, pinned): every write is in the WAL
            // file before write() returns, so a later syncWal() covers it; and recovery keeps the
            // longest intact prefix of the WAL, so a crash loses only a suffix of unsynced writes.
            .setManualWalFlush(false)
            .setWalRecoveryMode(WALRecoveryMode.PointInTimeRecovery)
            // A WAL sync after an append also writes the inode; one after overwriting written
            // blocks does not. Recycled WAL files with atomic flushes (every WAL then ends about
            // as long as the last) make syncs overwrite: docs/architecture.md, "WAL syncs that
            // overwrite". RocksDB silently drops recycling under TolerateCorruptedTailRecords or
            // AbsoluteConsistency recovery, or with a WAL TTL or size limit.
            .setRecycleLogFileNum(RECYCLED_WAL_FILES)
            .setAtomicFlush(true)
            .setKeepLogFileNum(KEEP_INFO_LOGS)
            .setStatistics(stats);
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions));
    for (ColumnFamily family : ColumnFamily.values()) {
      long buffer = LARGER_WRITE_BUFFERS.getOrDefault(family, WRITE_BUFFER_BYTES);
      // Nothing reads the journal family by key (its readers scan it), so Bloom filters there
      // would only cost a hash per record and a filter block per flushed file.
      boolean pointReads = family != ColumnFamily.JOURNAL;
      descriptors.add(
          new ColumnFamilyDescriptor(
              family.nameBytes(),
              buffer == WRITE_BUFFER_BYTES && pointReads
                  ? cfOptions
                  : familyOptions(buffer, cache, bloom, pointReads)));
    }
    List<ManagedNative<ColumnFamilyHandle>> handles = new ArrayList<>();
    db = keep(ManagedNatives.open(dbOptions, options.dir(), descriptors, handles));
    handles.forEach(natives::addLast); // after the database, so closed before it
    for (ColumnFamily family : ColumnFamily.values()) {
      ColumnFamilyHandle handle = handles.get(family.ordinal() + 1).get();
      families.put(family, handle);
      familyIds[family.ordinal()] = handle.getID();
    }
    syncedWrites = keep(ManagedNatives.writeOptions()).setSync(true);
    unsyncedWrites = keep(ManagedNatives.writeOptions()).setSync(false);
    statistics = stats;
  }

  /**
   * A family's options with a memtable of {@code writeBufferBytes}, and Bloom filters in its
   * memtables and files if the family has {@code pointReads}; kept until close.
   */
  private ColumnFamilyOptions familyOptions(
      long writeBufferBytes, LRUCache cache, BloomFilter bloom, boolean pointReads) {
    ColumnFamilyOptions o = keep(ManagedNatives.columnFamilyOptions());
    o.setWriteBufferSize(writeBufferBytes);
    BlockBasedTableConfig table = new BlockBasedTableConfig().setBlockCache(cache);
    if (pointReads) {
      // A create looks up a name that is not there (and a retried call's retry-cache key): the
      // memtable's own whole-key Bloom filter answers such misses without searching its skip list.
      o.setMemtablePrefixBloomSizeRatio(MEMTABLE_BLOOM_RATIO);
      o.setMemtableWholeKeyFiltering(true);
      table.setFilterPolicy(bloom);
    }
    o.setTableFormatConfig(table);
    return o;
  }

  private <T extends AbstractNativeReference> T keep(ManagedNative<T> n) {
    natives.addLast(n);
    return n.get();
  }

  RocksDB db() {
    return requireNonNull(db);
  }

  ColumnFamilyHandle handle(ColumnFamily family) {
    return requireNonNull(families.get(family)); // openIn made a handle for every family
  }

  /** The RocksDB id of {@code family}, as a write batch names it ({@link WriteBatchEncoder}). */
  int familyId(ColumnFamily family) {
    return familyIds[family.ordinal()];
  }

  /** The options of a write that syncs the WAL before it returns ({@code sync}) or does not. */
  WriteOptions writeOptions(boolean sync) {
    return requireNonNull(sync ? syncedWrites : unsyncedWrites);
  }

  /** WAL syncs since open (RocksDB's {@code WAL_FILE_SYNCED} ticker). */
  long walSyncs() {
    return requireNonNull(statistics).getTickerCount(TickerType.WAL_FILE_SYNCED);
  }

  /** Frees every native object in reverse order of creation; idempotent. */
  @Override
  public void close() {
    families.clear();
    while (!natives.isEmpty()) {
      ManagedNative<?> n = natives.pollLast();
      try {
        n.close();
      } catch (RuntimeException e) {
        LOG.warn("closing {} failed", n, e);
      }
    }
  }
}
