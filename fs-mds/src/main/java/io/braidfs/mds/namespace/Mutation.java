package io.braidfs.mds.namespace;

import io.braidfs.common.clock.Clock;
import io.braidfs.mds.cluster.ChunkRef;
import io.braidfs.mds.cluster.HolderIndex;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreBatch;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.DentryValue;
import io.braidfs.mds.store.proto.InodeRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One mutation being decided: the writes it will make, collected into the {@link StoreBatch} that
 * becomes its journal record, and reads that see those writes. Everything a record needs (ids, the
 * time, placements) is decided before {@link #batch()} is taken, so applying the record is
 * deterministic.
 *
 * <p>Reads go to this mutation's own writes first, then to the view it was made over (the journal's
 * view: the store and the records appended but not yet written). {@link #scan} reads that view
 * only, not this mutation's own writes: operations scan before they write.
 *
 * <p>Thread-safety: not thread-safe; used by the mutation thread only.
 */
public final class Mutation implements StoreView {
  private record Key(ColumnFamily family, ByteBuffer key) {}

  private final StoreView base;
  private final long nowNs;
  private final Map<Key, Optional<byte[]>> writes = new HashMap<>();
  private final StoreBatch.Builder batch = StoreBatch.builder();
  private final List<Runnable> afterApply = new ArrayList<>();
  private final @Nullable HolderIndex holders;
  private final Clock clock;

  Mutation(StoreView base, long nowNs) {
    this(base, nowNs, null, Clock.system());
  }

  /** A mutation whose applied chunk records update {@code holders}. */
  Mutation(StoreView base, long nowNs, @Nullable HolderIndex holders, Clock clock) {
    this.base = base;
    this.nowNs = nowNs;
    this.holders = holders;
    this.clock = clock;
  }

  /** The time of this mutation, nanoseconds since the epoch: every timestamp it writes. */
  long nowNs() {
    return nowNs;
  }

  @Override
  public byte @Nullable [] get(ColumnFamily family, byte[] key) throws IOException {
    Optional<byte[]> written = writes.get(new Key(family, ByteBuffer.wrap(key)));
    if (written != null) {
      return written.map(byte[]::clone).orElse(null);
    }
    return base.get(family, key);
  }

  @Override
  public ScanPage scan(ColumnFamily family, byte[] prefix, byte @Nullable [] startAfter, int limit)
      throws IOException {
    return base.scan(family, prefix, startAfter, limit);
  }

  @Override
  public long appliedIndex() {
    return base.appliedIndex();
  }

  public void put(ColumnFamily family, byte[] key, byte[] value) {
    writes.put(new Key(family, ByteBuffer.wrap(key.clone())), Optional.of(value.clone()));
    batch.put(family, key, value);
  }

  public void delete(ColumnFamily family, byte[] key) {
    writes.put(new Key(family, ByteBuffer.wrap(key.clone())), Optional.empty());
    batch.delete(family, key);
  }

  void putInode(long id, InodeRecord record) {
    put(ColumnFamily.INODES, Keys.inode(id), Records.encode(record));
  }

  void putInode(Inode inode) {
    putInode(inode.id(), inode.record());
  }

  void putEntry(long parent, String name, Inode child) {
    put(
        ColumnFamily.DENTRIES,
        Keys.dentry(parent, name),
        Records.encode(
            DentryValue.newBuilder()
                .setChildId(child.id())
                .setType(child.record().getType())
                .build()));
  }

  void deleteEntry(long parent, String name) {
    delete(ColumnFamily.DENTRIES, Keys.dentry(parent, name));
  }

  /**
   * Runs {@code action} once this mutation's record is applied, on the mutation thread (in-memory
   * state that must change only if the record is journaled: leases, the deletion queue's view).
   */
  void afterApply(Runnable action) {
    afterApply.add(action);
  }

  /** Runs the {@link #afterApply} actions; called once the record is applied. */
  public void applied() {
    HolderIndex index = holders;
    if (index != null) {
      long now = clock.nanoTime();
      for (Map.Entry<Key, Optional<byte[]>> w : writes.entrySet()) {
        if (w.getKey().family() != ColumnFamily.CHUNKS) {
          continue;
        }
        byte[] key = new byte[w.getKey().key().remaining()];
        w.getKey().key().duplicate().get(key);
        ChunkRef chunk = new ChunkRef(Keys.chunkInode(key), Keys.chunkIndex(key));
        List<Integer> holders;
        try {
          holders =
              w.getValue().isPresent()
                  ? Records.decodeChunk(key, w.getValue().get()).getReplicaServerIdsList()
                  : List.of();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException("a chunk record this mutation wrote", e);
        }
        index.update(chunk, holders, now);
      }
    }
    for (Runnable r : afterApply) {
      r.run();
    }
  }

  /** Whether nothing was written. */
  public boolean isEmpty() {
    return writes.isEmpty();
  }

  /** The writes so far, in order. */
  public StoreBatch batch() {
    return batch.build();
  }
}
