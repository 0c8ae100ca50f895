package io.braidfs.mds.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The writes of one journal record: puts and deletes over any column families, applied in order and
 * atomically by {@link MetadataStore#apply} (together with the applied journal index, which a batch
 * cannot write itself). A later operation on the same key wins.
 *
 * <pre>{@code
 * StoreBatch create = StoreBatch.builder()
 *     .put(ColumnFamily.INODES, Keys.inode(child), attributes)
 *     .put(ColumnFamily.DENTRIES, Keys.dentry(parent, name), entry)
 *     .put(ColumnFamily.RETRY, Keys.retry(clientId, callId), result)
 *     .build();
 * }</pre>
 *
 * <p>Two batches are {@link #equals equal} when they hold the same operations, bytes included, in
 * the same order.
 *
 * <p>Thread-safety: immutable once built (the builder copies every key and value it is given). The
 * {@link Builder} is not thread-safe.
 */
public final class StoreBatch {
  private static final StoreBatch EMPTY = new StoreBatch(List.of(), 0);

  /** One put (value non-null) or delete (value null). The arrays are never exposed. */
  record Op(ColumnFamily family, byte[] key, byte @Nullable [] value) {}

  private final List<Op> ops;
  private final long bytes;

  private StoreBatch(List<Op> ops, long bytes) {
    this.ops = ops;
    this.bytes = bytes;
  }

  /** A batch that writes nothing; applying it only advances the applied index. */
  public static StoreBatch empty() {
    return EMPTY;
  }

  /** A builder for a new batch. */
  public static Builder builder() {
    return new Builder();
  }

  /** The number of puts and deletes. */
  public int size() {
    return ops.size();
  }

  /** Whether the batch writes nothing. */
  public boolean isEmpty() {
    return ops.isEmpty();
  }

  /** The total length of every key and value, in bytes. */
  public long payloadBytes() {
    return bytes;
  }

  /** The operations in order; the store reads the arrays without copying them. */
  List<Op> ops() {
    return ops;
  }

  /**
   * A batch of {@code ops} as they are, without copies: the caller hands the arrays over and keeps
   * no reference to them. Checks nothing; {@link Records#journalBatch} checks decoded operations.
   */
  static StoreBatch ofOwned(List<Op> ops) {
    if (ops.isEmpty()) {
      return EMPTY;
    }
    long bytes = 0;
    for (Op op : ops) {
      byte[] value = op.value();
      bytes += op.key().length + (value == null ? 0 : value.length);
    }
    return new StoreBatch(List.copyOf(ops), bytes);
  }

  /** Whether any operation of the batch is in {@code family}. */
  public boolean writes(ColumnFamily family) {
    for (Op op : ops) {
      if (op.family() == family) {
        return true;
      }
    }
    return false;
  }

  /**
   * A batch of this batch's operations followed by those of {@code after} (which win on the same
   * key). Shares the operations of both, without copying keys or values.
   */
  public StoreBatch plus(StoreBatch after) {
    if (after.isEmpty()) {
      return this;
    }
    if (isEmpty()) {
      return after;
    }
    List<Op> joined = new ArrayList<>(ops.size() + after.ops.size());
    joined.addAll(ops);
    joined.addAll(after.ops);
    return new StoreBatch(Collections.unmodifiableList(joined), bytes + after.bytes);
  }

  /** Whether {@code o} is a batch of the same operations in the same order, bytes included. */
  @Override
  public boolean equals(@Nullable Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof StoreBatch other) || other.ops.size() != ops.size()) {
      return false;
    }
    for (int i = 0; i < ops.size(); i++) {
      Op a = ops.get(i);
      Op b = other.ops.get(i);
      if (a.family() != b.family()
          || !Arrays.equals(a.key(), b.key())
          || !Arrays.equals(a.value(), b.value())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = 1;
    for (Op op : ops) {
      h = 31 * h + op.family().ordinal();
      h = 31 * h + Arrays.hashCode(op.key());
      h = 31 * h + Arrays.hashCode(op.value());
    }
    return h;
  }

  @Override
  public String toString() {
    return "StoreBatch[" + ops.size() + " ops, " + bytes + " bytes]";
  }

  /**
   * Collects the operations of a {@link StoreBatch}.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Builder {
    private final List<Op> ops = new ArrayList<>();
    private long bytes;

    private Builder() {}

    /**
     * Sets {@code key} to {@code value} in {@code family}. Both arrays are copied.
     *
     * @throws IllegalArgumentException if the key is the store's own applied-index entry
     * @throws NullPointerException if an argument is null
     */
    public Builder put(ColumnFamily family, byte[] key, byte[] value) {
      Objects.requireNonNull(value, "value");
      add(family, key, value.clone());
      bytes += value.length;
      return this;
    }

    /**
     * Removes {@code key} from {@code family}; removing a missing key is not an error. The key is
     * copied.
     *
     * @throws IllegalArgumentException if the key is the store's own applied-index entry
     * @throws NullPointerException if an argument is null
     */
    public Builder delete(ColumnFamily family, byte[] key) {
      add(family, key, null);
      return this;
    }

    /** The batch of every operation added so far, in order; the builder can go on. */
    public StoreBatch build() {
      return ops.isEmpty() ? EMPTY : new StoreBatch(List.copyOf(ops), bytes);
    }

    private void add(ColumnFamily family, byte[] key, byte @Nullable [] value) {
      Objects.requireNonNull(family, "family");
      Objects.requireNonNull(key, "key");
      if (family == ColumnFamily.META && Arrays.equals(key, Keys.APPLIED_INDEX_KEY)) {
        throw new IllegalArgumentException(
            "meta/" + Keys.APPLIED_INDEX + " is written by the store, never by a batch");
      }
      ops.add(new Op(family, key.clone(), value));
      bytes += key.length;
    }
  }
}
