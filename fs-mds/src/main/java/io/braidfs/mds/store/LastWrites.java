package io.braidfs.mds.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The operations of batches written as one atomic store write, without those a later operation of
 * the same write overrides (same family and key): only the last put or delete of a key is written.
 *
 * <p>Why: one write holds a group of journal records, and records of a group rewrite the same keys
 * (every create advances the inode counter and the inode count, and each new chunk the version
 * counter; creates in one directory update its inode). The store sees the write whole or not at
 * all, so the superseded operations never show; writing them only costs memtable inserts, WAL bytes
 * and, later, compaction. A create in its own directory then makes about 10 memtable inserts
 * instead of 16.
 *
 * <p>The kept operations stay in their order. Thread-safety: stateless.
 */
final class LastWrites {
  private LastWrites() {}

  /** A family and key, compared by content. */
  private record Key(ColumnFamily family, byte[] key) {
    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof Key k && k.family == family && Arrays.equals(k.key, key);
    }

    @Override
    public int hashCode() {
      return 31 * family.ordinal() + Arrays.hashCode(key);
    }
  }

  /** The operations of {@code batches}, in order, that no later operation overrides. */
  static List<StoreBatch.Op> of(List<StoreBatch> batches) {
    // Backwards: an operation is kept if no operation after it wrote its key.
    Set<Key> later = new HashSet<>();
    List<StoreBatch.Op> kept = new ArrayList<>();
    for (int b = batches.size() - 1; b >= 0; b--) {
      List<StoreBatch.Op> ops = batches.get(b).ops();
      for (int i = ops.size() - 1; i >= 0; i--) {
        StoreBatch.Op op = ops.get(i);
        if (later.add(new Key(op.family(), op.key()))) {
          kept.add(op);
        }
      }
    }
    Collections.reverse(kept);
    return kept;
  }
}
