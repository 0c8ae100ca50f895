package io.braidfs.mds.store;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The column families of the metadata store (ARCHITECTURE section 4, ha-meta-security 4.2). Keys
 * are built by {@link Keys}; values are opaque to the store.
 *
 * <p>Each family has a stable numeric {@link #id()}, which journal records store to name it (never
 * the ordinal, which changes when a family is added in the middle); ids are never reused.
 *
 * <p>Thread-safety: immutable.
 */
public enum ColumnFamily {
  /** Inode id ({@link Keys#inode}) to attributes. */
  INODES("inodes", 1),
  /** Parent id and name ({@link Keys#dentry}) to child id and type. */
  DENTRIES("dentries", 2),
  /** Inode id and attribute name ({@link Keys#xattr}) to the attribute value. */
  XATTRS("xattrs", 3),
  /** Inode id and chunk index ({@link Keys#chunk}) to replica set, version and length. */
  CHUNKS("chunks", 4),
  /**
   * Named entries ({@link Keys#meta}): the applied journal index (written only by the store), id
   * counters, signing keys.
   */
  META("meta", 5),
  /** Client id and call id ({@link Keys#retry}) to the result of the call and its expiry. */
  RETRY("retry", 6),
  /** The durable deletion queue ({@link Keys#deletion}): chunks to remove from data servers. */
  DELETIONS("deletions", 7),
  /**
   * The journal ({@link Keys#journal}): journal index to the record of that mutation ({@code
   * JournalEntry}), the last {@code braid.mds.journal.retained-records} of them. Written only by
   * the journal ({@code io.braidfs.mds.journal.WalJournal}), in the same write as the mutation
   * itself; the journal refuses a mutation whose own batch writes here.
   */
  JOURNAL("journal", 8);

  /** {@link #values()}, copied once. */
  private static final ColumnFamily[] VALUES = values();

  private final String cfName;
  private final int id;

  ColumnFamily(String cfName, int id) {
    this.cfName = cfName;
    this.id = id;
  }

  /**
   * The family with stable id {@code id}.
   *
   * @return the family, or null if no family has that id (a record written by a newer release, or a
   *     corrupt one)
   */
  public static @Nullable ColumnFamily byId(int id) {
    for (ColumnFamily f : VALUES) {
      if (f.id == id) {
        return f;
      }
    }
    return null;
  }

  /**
   * The family's stable id, from 1, stored in journal records; unlike {@link #ordinal()}, it never
   * changes.
   */
  public int id() {
    return id;
  }

  /** The column family's name in RocksDB, such as {@code dentries}. */
  public String cfName() {
    return cfName;
  }

  byte[] nameBytes() {
    return cfName.getBytes(StandardCharsets.UTF_8);
  }
}
