package io.braidfs.mds.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A {@link MetadataStore} that keeps the values of point reads of {@link ColumnFamily#INODES} and
 * {@link ColumnFamily#DENTRIES} in memory, in front of another store (RocksDB), so that resolving a
 * path costs hash lookups instead of a JNI read per component. Everything else goes straight to the
 * store it wraps, which it owns (starts and closes).
 *
 * <p>Design. The cache holds only what the store holds now: an entry is added by a read that
 * missed, with the value it read, and every write ({@link #applyAll}) first writes the store, then,
 * for each key it writes in those families, bumps the key's stripe stamp and updates the entry if
 * one is cached (the new value, or its removal for a delete). A read that missed notes its key's
 * stamp before it reads the store and, after adding the entry, checks the stamp again: if a write
 * to that stripe came in between, the value it read may be older than the write, so it takes its
 * entry out again. So an entry that survives was read after the last write to its key, or written
 * by it. Absent keys are not cached (a create looks up a name that is not there yet; negative
 * entries would need the same care for little gain). Writes are serialized by this class, so two
 * writers cannot leave their updates in the wrong order.
 *
 * <p>The size is bounded by {@code maxEntries}: a read that would go past it first drops about an
 * eighth of the entries, arbitrary ones (no recency order; the working set of a namespace that fits
 * is the case this is for). With {@code maxEntries = 0} nothing is cached.
 *
 * <p>{@link #cacheOnly()} is a view that answers from the cache alone and throws {@link CacheMiss}
 * where it would have to read RocksDB, so that an event loop can answer reads that hit without a
 * thread hand-off and without blocking.
 *
 * <p>Thread-safety: thread-safe. Reads run concurrently with each other and with writes; writes are
 * serialized.
 */
public final class CachedMetadataStore implements MetadataStore {
  private static final int STRIPES = 1024;

  private final MetadataStore store;
  private final int maxEntries;
  private final ConcurrentHashMap<CacheKey, byte[]> entries;
  private final AtomicLongArray stamps = new AtomicLongArray(STRIPES);
  private final ReentrantLock writeLock = new ReentrantLock();
  private final AtomicBoolean evicting = new AtomicBoolean();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final StoreView cacheOnly = new CacheOnlyView();

  /**
   * A cache of at most {@code maxEntries} values in front of {@code store}, which it takes over:
   * {@link #start()} starts it and {@link #close()} closes it.
   *
   * @throws IllegalArgumentException if {@code maxEntries < 0}
   */
  public CachedMetadataStore(MetadataStore store, int maxEntries) {
    if (maxEntries < 0) {
      throw new IllegalArgumentException("maxEntries must be >= 0: " + maxEntries);
    }
    this.store = Objects.requireNonNull(store, "store");
    this.maxEntries = maxEntries;
    this.entries = new ConcurrentHashMap<>(Math.min(maxEntries, 1 << 16));
  }

  /** Whether point reads of {@code family} are cached. */
  static boolean cached(ColumnFamily family) {
    return family == ColumnFamily.INODES || family == ColumnFamily.DENTRIES;
  }

  /**
   * A view of the cache alone: {@link StoreView#get} returns a cached value (a copy) or throws
   * {@link CacheMiss}, never null and never reading the store; {@link StoreView#scan} always throws
   * {@link CacheMiss}. Safe to use on an event loop.
   */
  public StoreView cacheOnly() {
    return cacheOnly;
  }

  /** The number of values cached now. */
  public int size() {
    return entries.size();
  }

  /** Point reads of the cached families answered from memory since start. */
  public long hits() {
    return hits.sum();
  }

  /** Point reads of the cached families that read the store since start. */
  public long misses() {
    return misses.sum();
  }

  // ---- reads ----------------------------------------------------------------------------------

  @Override
  public byte @Nullable [] get(ColumnFamily family, byte[] key) throws IOException {
    if (maxEntries == 0 || !cached(family)) {
      return store.get(family, key);
    }
    byte[] v = entries.get(new CacheKey(family, key));
    if (v != null) {
      hits.increment();
      return v.clone();
    }
    misses.increment();
    CacheKey k = new CacheKey(family, key.clone());
    int stripe = k.stripe();
    long stamp = stamps.get(stripe);
    byte[] read = store.get(family, key);
    if (read == null) {
      return null;
    }
    if (entries.size() >= maxEntries) {
      evict();
    }
    byte[] kept = read.clone();
    entries.put(k, kept);
    if (stamps.get(stripe) != stamp) {
      // A write to this stripe came in since the read started: what it read may be older.
      entries.remove(k, kept);
    }
    return read;
  }

  /** Drops about an eighth of the entries (arbitrary ones); one thread at a time. */
  private void evict() {
    if (!evicting.compareAndSet(false, true)) {
      return;
    }
    try {
      int drop = Math.max(1, entries.size() / 8);
      Iterator<CacheKey> it = entries.keySet().iterator();
      while (drop-- > 0 && it.hasNext()) {
        it.next();
        it.remove();
      }
    } finally {
      evicting.set(false);
    }
  }

  @Override
  public ScanPage scan(ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter, int limit)
      throws IOException {
    return store.scan(family, prefix, startAfter, limit);
  }

  @Override
  public long appliedIndex() {
    return store.appliedIndex();
  }

  @Override
  public StoreSnapshot snapshot() throws IOException {
    return store.snapshot();
  }

  // ---- writes ---------------------------------------------------------------------------------

  @Override
  public void applyAll(List<StoreBatch> batches, long firstIndex) throws IOException {
    writeLock.lock();
    boolean written = false;
    try {
      store.applyAll(batches, firstIndex);
      written = true;
    } finally {
      // Also after a failure: the cached keys it touched are dropped rather than updated.
      update(batches, written);
      writeLock.unlock();
    }
  }

  @Override
  public void applyAll(List<StoreBatch> batches, long firstIndex, boolean sync) throws IOException {
    writeLock.lock();
    boolean written = false;
    try {
      store.applyAll(batches, firstIndex, sync);
      written = true;
    } finally {
      update(batches, written);
      writeLock.unlock();
    }
  }

  /**
   * After {@code batches} were written (or their write failed): bumps the stamps, then updates what
   * is cached (or drops it).
   */
  private void update(List<StoreBatch> batches, boolean written) {
    if (maxEntries == 0) {
      return;
    }
    for (StoreBatch batch : batches) {
      for (StoreBatch.Op op : batch.ops()) {
        if (!cached(op.family())) {
          continue;
        }
        CacheKey k = new CacheKey(op.family(), op.key());
        stamps.incrementAndGet(k.stripe());
        byte[] value = op.value();
        if (value == null || !written) {
          entries.remove(k);
        } else {
          // The batch's arrays are immutable; readers get copies.
          entries.replace(k, value);
        }
      }
    }
  }

  @Override
  public void syncWal() throws IOException {
    store.syncWal();
  }

  @Override
  public long checkpoint(Path target) throws IOException {
    return store.checkpoint(target);
  }

  @Override
  public boolean isWritable() {
    return store.isWritable();
  }

  // ---- life cycle -----------------------------------------------------------------------------

  /** Starts the wrapped store. */
  @Override
  public void start() throws IOException {
    store.start();
  }

  /** Closes the wrapped store and empties the cache. */
  @Override
  public void close() {
    store.close();
    entries.clear();
  }

  @Override
  public String toString() {
    return "CachedMetadataStore[" + store + ", " + entries.size() + "/" + maxEntries + "]";
  }

  // ---- internals ------------------------------------------------------------------------------

  /**
   * A family and key, compared by content. The key array is never changed once in a {@code
   * CacheKey}.
   */
  private static final class CacheKey {
    private final ColumnFamily family;
    private final byte[] key;
    private final int hash;

    CacheKey(ColumnFamily family, byte[] key) {
      this.family = family;
      this.key = key;
      this.hash = 31 * family.ordinal() + Arrays.hashCode(key);
    }

    int stripe() {
      int h = hash ^ (hash >>> 16);
      return h & (STRIPES - 1);
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof CacheKey other
          && other.hash == hash
          && other.family == family
          && Arrays.equals(other.key, key);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /**
   * Thrown by the {@link #cacheOnly()} view where an answer needs the store. Carries no stack trace
   * and no message; one instance is shared.
   *
   * <p>Thread-safety: immutable.
   */
  public static final class CacheMiss extends IOException {
    private static final long serialVersionUID = 1L;

    /** The one instance. */
    public static final CacheMiss INSTANCE = new CacheMiss();

    private CacheMiss() {
      super("not in the metadata cache", null);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }

  /**
   * The cache alone, as a read-only view.
   *
   * <p>Thread-safety: thread-safe.
   */
  private final class CacheOnlyView implements StoreView {
    @Override
    public byte[] get(ColumnFamily family, byte[] key) throws IOException {
      if (maxEntries == 0 || !cached(family)) {
        throw CacheMiss.INSTANCE;
      }
      byte[] v = entries.get(new CacheKey(family, key));
      if (v == null) {
        throw CacheMiss.INSTANCE;
      }
      hits.increment();
      return v.clone();
    }

    @Override
    public ScanPage scan(
        ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter, int limit)
        throws IOException {
      throw CacheMiss.INSTANCE;
    }

    @Override
    public long appliedIndex() {
      return store.appliedIndex();
    }
  }
}
