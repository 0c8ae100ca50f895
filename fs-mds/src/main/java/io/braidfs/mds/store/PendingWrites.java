package io.braidfs.mds.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A store as it will be once the batches handed to a background writer are written: reads see those
 * batches' puts and deletes over what the store holds. The journal's writer applies batches to the
 * store in groups, off the thread that decides them; that thread reads through this view so that
 * each decision sees every earlier one, written or not.
 *
 * <p>Design. Each family keeps its pending writes in a sorted map (unsigned byte order, RocksDB's
 * bytewise order) from key to the latest pending write of that key. {@link #add} enters a batch's
 * writes and returns them; once the batch is in the store, {@link #written} removes each of them
 * unless a later batch replaced it. A read consults the pending writes first and the store second:
 * a write leaves the pending map only after it reached the store, so whatever the map no longer
 * holds, the store already has. A {@link #scan} merges the store's page with the pending writes of
 * the range: a pending put replaces or adds its key, a pending delete hides it. Where pending
 * deletes hide a whole store page, it reads on, so a page is empty only at the end.
 *
 * <p>Thread-safety: thread-safe. {@link #add} and the reads are meant for the deciding thread,
 * {@link #written} for the writer; batches must be added in the order they will be written.
 */
public final class PendingWrites implements StoreView {
  /** One pending put (value non-null) or delete; compared by identity. */
  private static final class Write {
    final byte @Nullable [] value;

    Write(byte @Nullable [] value) {
      this.value = value;
    }
  }

  /**
   * The writes {@link #add} entered for one batch, for {@link #written}.
   *
   * <p>Thread-safety: immutable.
   */
  public static final class Added {
    private final StoreBatch batch;
    private final Write[] writes;

    private Added(StoreBatch batch, Write[] writes) {
      this.batch = batch;
      this.writes = writes;
    }
  }

  private final StoreView store;
  private final LongSupplier lastIndex;
  private final Map<ColumnFamily, ConcurrentSkipListMap<byte[], Write>> pending =
      new EnumMap<>(ColumnFamily.class);

  /**
   * A view of {@code store} with the pending writes over it.
   *
   * @param lastIndex the index of the last batch added, for {@link #appliedIndex()}
   */
  public PendingWrites(StoreView store, LongSupplier lastIndex) {
    this.store = Objects.requireNonNull(store, "store");
    this.lastIndex = Objects.requireNonNull(lastIndex, "lastIndex");
    for (ColumnFamily f : ColumnFamily.values()) {
      pending.put(f, new ConcurrentSkipListMap<>(Arrays::compareUnsigned));
    }
  }

  /** Enters the writes of {@code batch}, which reads see from now on until {@link #written}. */
  public Added add(StoreBatch batch) {
    List<StoreBatch.Op> ops = batch.ops();
    Write[] writes = new Write[ops.size()];
    for (int i = 0; i < writes.length; i++) {
      StoreBatch.Op op = ops.get(i);
      writes[i] = new Write(op.value());
      writesIn(op.family()).put(op.key(), writes[i]);
    }
    return new Added(batch, writes);
  }

  /** Removes the writes of {@code added}, now in the store, unless a later batch replaced them. */
  public void written(Added added) {
    List<StoreBatch.Op> ops = added.batch.ops();
    for (int i = 0; i < added.writes.length; i++) {
      StoreBatch.Op op = ops.get(i);
      writesIn(op.family()).remove(op.key(), added.writes[i]);
    }
  }

  /** The pending writes of {@code family}: the constructor made a map for every family. */
  private ConcurrentSkipListMap<byte[], Write> writesIn(ColumnFamily family) {
    return Objects.requireNonNull(pending.get(family));
  }

  /** The number of keys with a pending write. */
  public int size() {
    int n = 0;
    for (var m : pending.values()) {
      n += m.size();
    }
    return n;
  }

  @Override
  public byte @Nullable [] get(ColumnFamily family, byte[] key) throws IOException {
    Write w = writesIn(family).get(key);
    if (w == null) {
      return store.get(family, key);
    }
    return w.value == null ? null : w.value.clone();
  }

  @Override
  public ScanPage scan(ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter, int limit)
      throws IOException {
    RocksReads.checkScan(prefix, startAfter, limit);
    // The pending writes first, then the store: see the class comment.
    List<Map.Entry<byte[], Write>> writes = pendingIn(family, prefix, startAfter);
    if (writes.isEmpty()) {
      return store.scan(family, prefix, startAfter, limit);
    }
    List<ScanPage.Entry> out = new ArrayList<>();
    int w = 0;
    byte[] cursor = startAfter;
    while (true) {
      ScanPage page = store.scan(family, prefix, cursor, limit);
      // Pending writes beyond the page's last key belong to a later page, unless this is the last.
      byte[] bound = page.hasMore() ? page.cursor() : null;
      int s = 0;
      List<ScanPage.Entry> stored = page.entries();
      while (s < stored.size() || (w < writes.size() && within(writes.get(w).getKey(), bound))) {
        if (out.size() == limit) {
          return new ScanPage(out, true);
        }
        int order =
            s == stored.size()
                ? 1
                : w == writes.size() || !within(writes.get(w).getKey(), bound)
                    ? -1
                    : Arrays.compareUnsigned(stored.get(s).key(), writes.get(w).getKey());
        if (order < 0) {
          out.add(stored.get(s++));
          continue;
        }
        if (order == 0) {
          s++; // the pending write replaces the stored value
        }
        Map.Entry<byte[], Write> pw = writes.get(w++);
        if (pw.getValue().value != null) {
          out.add(new ScanPage.Entry(pw.getKey().clone(), pw.getValue().value.clone()));
        }
      }
      if (!page.hasMore()) {
        return new ScanPage(out, false);
      }
      if (!out.isEmpty()) {
        return new ScanPage(out, true);
      }
      cursor = bound; // every entry of the page was deleted by a pending write: read on
    }
  }

  private static boolean within(byte[] key, byte @Nullable [] bound) {
    return bound == null || Arrays.compareUnsigned(key, bound) <= 0;
  }

  /** The pending writes of {@code family} in the scanned range, in key order. */
  private List<Map.Entry<byte[], Write>> pendingIn(
      ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter) {
    ConcurrentSkipListMap<byte[], Write> map = writesIn(family);
    if (map.isEmpty()) {
      return List.of();
    }
    NavigableMap<byte[], Write> tail =
        startAfter == null ? map.tailMap(prefix, true) : map.tailMap(startAfter, false);
    List<Map.Entry<byte[], Write>> out = new ArrayList<>();
    for (Map.Entry<byte[], Write> e : tail.entrySet()) {
      if (!Keys.startsWith(e.getKey(), prefix)) {
        break;
      }
      out.add(Map.entry(e.getKey(), e.getValue()));
    }
    return out;
  }

  /** The index of the last batch added (written or not). */
  @Override
  public long appliedIndex() {
    return lastIndex.getAsLong();
  }
}
