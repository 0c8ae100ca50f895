package io.braidfs.mds.store;

import java.nio.charset.StandardCharsets;

/**
 * The column families of the metadata store (ARCHITECTURE section 4, ha-meta-security 4.2). Keys
 * are built by {@link Keys}; values are opaque to the store.
 *
 * <p>Thread-safety: immutable.
 */
public enum ColumnFamily {
  /** Inode id ({@link Keys#inode}) to attributes. */
  INODES("inodes"),
  /** Parent id and name ({@link Keys#dentry}) to child id and type. */
  DENTRIES("dentries"),
  /** Inode id and attribute name ({@link Keys#xattr}) to the attribute value. */
  XATTRS("xattrs"),
  /** Inode id and chunk index ({@link Keys#chunk}) to replica set, version and length. */
  CHUNKS("chunks"),
  /**
   * Named entries ({@link Keys#meta}): the applied journal index (written only by the store), id
   * counters, signing keys.
   */
  META("meta"),
  /** Client id and call id ({@link Keys#retry}) to the result of the call and its expiry. */
  RETRY("retry"),
  /** The durable deletion queue ({@link Keys#deletion}): chunks to remove from data servers. */
  DELETIONS("deletions");

  private final String cfName;

  ColumnFamily(String cfName) {
    this.cfName = cfName;
  }

  /** The column family's name in RocksDB, such as {@code dentries}. */
  public String cfName() {
    return cfName;
  }

  byte[] nameBytes() {
    return cfName.getBytes(StandardCharsets.UTF_8);
  }
}
