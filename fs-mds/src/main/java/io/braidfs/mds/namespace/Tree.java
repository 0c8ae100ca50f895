package io.braidfs.mds.namespace;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.DentryValue;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Point reads of inodes and entries over any {@link StoreView}, decoding the records.
 *
 * <p>Thread-safety: stateless.
 */
final class Tree {
  /** The root directory's inode id. */
  static final long ROOT = 1;

  private Tree() {}

  static @Nullable Inode find(StoreView view, long id) throws IOException {
    byte[] key = Keys.inode(id);
    byte[] value = view.get(ColumnFamily.INODES, key);
    return value == null ? null : new Inode(id, Records.decodeInode(key, value));
  }

  /** The inode {@code id}, which an entry names: its absence is corrupt metadata. */
  static Inode named(StoreView view, long id, String what) throws IOException {
    Inode inode = find(view, id);
    if (inode == null) {
      throw StatusExceptions.toIOException(
          Status.INTERNAL,
          "corrupt metadata: " + what + " names inode " + Long.toUnsignedString(id) + ", missing");
    }
    return inode;
  }

  /** The inode of a handle-based call: a vanished one is STALE_HANDLE. */
  static Inode handle(StoreView view, long id, String path) throws IOException {
    Inode inode = find(view, id);
    if (inode == null) {
      throw StatusExceptions.toIOException(
          Status.STALE_HANDLE, path + ": inode " + Long.toUnsignedString(id) + " no longer exists");
    }
    return inode;
  }

  static @Nullable DentryValue entry(StoreView view, long parent, String name) throws IOException {
    byte[] key = Keys.dentry(parent, name);
    byte[] value = view.get(ColumnFamily.DENTRIES, key);
    return value == null ? null : Records.decodeDentry(key, value);
  }

  /** The child named {@code name} in {@code parent}, or null. */
  static @Nullable Inode child(StoreView view, long parent, String name) throws IOException {
    DentryValue e = entry(view, parent, name);
    return e == null ? null : named(view, e.getChildId(), "entry '" + name + "'");
  }

  /** Whether directory {@code dir} has no entries. */
  static boolean isEmptyDirectory(StoreView view, long dir) throws IOException {
    return view.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(dir), null, 1).entries().isEmpty();
  }
}
