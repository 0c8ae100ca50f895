package io.braidfs.mds.namespace;

import io.braidfs.mds.access.PermissionStatus;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.InodeType;

/**
 * One inode as read from the store: its id (the key) and its record.
 *
 * <p>Thread-safety: immutable.
 *
 * @param id the inode id, never 0
 * @param record the stored attributes
 */
record Inode(long id, InodeRecord record) {
  boolean isDirectory() {
    return record.getType() == InodeType.INODE_TYPE_DIRECTORY;
  }

  boolean isFile() {
    return record.getType() == InodeType.INODE_TYPE_REGULAR;
  }

  boolean isSymlink() {
    return record.getType() == InodeType.INODE_TYPE_SYMLINK;
  }

  /** Owner, group and mode as the permission checks see them. */
  PermissionStatus permission() {
    return new PermissionStatus(
        record.getUser(), record.getGroup(), record.getMode(), isDirectory());
  }

  Inode with(InodeRecord changed) {
    return new Inode(id, changed);
  }

  @Override
  public String toString() {
    return record.getType() + "#" + Long.toUnsignedString(id);
  }
}
