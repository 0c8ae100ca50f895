package io.braidfs.mds.namespace;

import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.StoreView;
import java.io.IOException;

/**
 * The namespace's persistent counters in the {@code meta} family: the next inode id, the next chunk
 * version (a cluster-wide stamp, so a chunk id's versions never repeat, even across truncates), the
 * next deletion-queue sequence number, and the number of inodes. A mutation that advances one
 * writes its new value in the same batch, so the journal carries every id it decided.
 *
 * <p>Thread-safety: not thread-safe; used by the mutation thread (and read by statfs, which
 * tolerates a stale count).
 */
final class Counters {
  static final byte[] NEXT_INODE = Keys.meta("next-inode-id");
  static final byte[] NEXT_VERSION = Keys.meta("next-chunk-version");
  static final byte[] NEXT_DELETION = Keys.meta("next-deletion-seq");
  static final byte[] INODE_COUNT = Keys.meta("inode-count");

  private long nextInode;
  private long nextVersion;
  private long nextDeletion;
  private volatile long inodeCount;

  /** Loads the counters; a namespace without them is not formatted (all stay 0). */
  void load(StoreView view) throws IOException {
    nextInode = read(view, NEXT_INODE);
    nextVersion = read(view, NEXT_VERSION);
    nextDeletion = read(view, NEXT_DELETION);
    inodeCount = read(view, INODE_COUNT);
  }

  /** Sets the counters of a freshly formatted namespace holding only the root. */
  void format(Mutation m) {
    nextInode = Tree.ROOT + 1;
    nextVersion = 1;
    nextDeletion = 1;
    inodeCount = 1;
    m.put(ColumnFamily.META, NEXT_INODE, Keys.u64(nextInode));
    m.put(ColumnFamily.META, NEXT_VERSION, Keys.u64(nextVersion));
    m.put(ColumnFamily.META, NEXT_DELETION, Keys.u64(nextDeletion));
    m.put(ColumnFamily.META, INODE_COUNT, Keys.u64(inodeCount));
  }

  long newInode(Mutation m) {
    long id = nextInode++;
    m.put(ColumnFamily.META, NEXT_INODE, Keys.u64(nextInode));
    inodeCount++;
    m.put(ColumnFamily.META, INODE_COUNT, Keys.u64(inodeCount));
    return id;
  }

  void inodeRemoved(Mutation m) {
    inodeCount--;
    m.put(ColumnFamily.META, INODE_COUNT, Keys.u64(inodeCount));
  }

  long newVersion(Mutation m) {
    long v = nextVersion++;
    m.put(ColumnFamily.META, NEXT_VERSION, Keys.u64(nextVersion));
    return v;
  }

  long newDeletion(Mutation m) {
    long s = nextDeletion++;
    m.put(ColumnFamily.META, NEXT_DELETION, Keys.u64(nextDeletion));
    return s;
  }

  long inodeCount() {
    return inodeCount;
  }

  private static long read(StoreView view, byte[] key) throws IOException {
    byte[] v = view.get(ColumnFamily.META, key);
    return v == null ? 0 : Keys.readU64(v, 0);
  }
}
