package io.braidfs.mds.namespace;

import io.braidfs.mds.access.PermissionStatus;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.InodeType;
import java.util.List;

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

  /** A FIFO, device node or socket: an inode with no contents of its own (size 0, no chunks). */
  boolean isSpecial() {
    return isSpecial(record.getType());
  }

  static boolean isSpecial(InodeType type) {
    return switch (type) {
      case INODE_TYPE_FIFO,
          INODE_TYPE_CHARACTER_DEVICE,
          INODE_TYPE_BLOCK_DEVICE,
          INODE_TYPE_SOCKET ->
          true;
      case INODE_TYPE_UNSPECIFIED,
          INODE_TYPE_REGULAR,
          INODE_TYPE_DIRECTORY,
          INODE_TYPE_SYMLINK,
          UNRECOGNIZED ->
          false;
    };
  }

  /** What the inode is, for messages: "a directory", "a FIFO", ... */
  String kind() {
    return switch (record.getType()) {
      case INODE_TYPE_REGULAR -> "a regular file";
      case INODE_TYPE_DIRECTORY -> "a directory";
      case INODE_TYPE_SYMLINK -> "a symlink";
      case INODE_TYPE_FIFO -> "a FIFO";
      case INODE_TYPE_CHARACTER_DEVICE -> "a character device";
      case INODE_TYPE_BLOCK_DEVICE -> "a block device";
      case INODE_TYPE_SOCKET -> "a socket";
      case INODE_TYPE_UNSPECIFIED, UNRECOGNIZED -> "an inode of unknown type";
    };
  }

  /** Owner, group and mode as the permission checks see them. */
  PermissionStatus permission() {
    return new PermissionStatus(
        record.getUser(),
        record.getGroup(),
        record.getMode(),
        isDirectory(),
        record.getAclCount() == 0 ? List.of() : AclRecords.fromRecords(record.getAclList()));
  }

  Inode with(InodeRecord changed) {
    return new Inode(id, changed);
  }

  @Override
  public String toString() {
    return record.getType() + "#" + Long.toUnsignedString(id);
  }
}
