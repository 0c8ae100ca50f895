package io.braidfs.client;

import io.braidfs.common.layout.Layout;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.FileType;
import io.braidfs.proto.LayoutSpec;

/**
 * The attributes of one inode, as the MDS answered them (stat, FUSE getattr, Hadoop FileStatus).
 *
 * <p>Thread-safety: immutable.
 */
public final class FileAttributes {
  private final Attributes proto;

  FileAttributes(Attributes proto) {
    this.proto = proto;
  }

  /**
   * Attributes from their wire form: for code that predicts what the MDS will answer to a change it
   * sent (the FUSE mount's attribute write-behind).
   */
  public static FileAttributes of(Attributes proto) {
    return new FileAttributes(proto);
  }

  /** The wire form, for code that passes attributes on unchanged. */
  public Attributes toProto() {
    return proto;
  }

  /** The inode number: stable for the inode's life, never reused. */
  public long inodeId() {
    return proto.getInodeId();
  }

  public FileType type() {
    return proto.getType();
  }

  public boolean isFile() {
    return proto.getType() == FileType.FILE_TYPE_REGULAR;
  }

  public boolean isDirectory() {
    return proto.getType() == FileType.FILE_TYPE_DIRECTORY;
  }

  public boolean isSymlink() {
    return proto.getType() == FileType.FILE_TYPE_SYMLINK;
  }

  /** A named pipe (mkfifo): its bytes pass through the kernel of the machine that opens it. */
  public boolean isFifo() {
    return proto.getType() == FileType.FILE_TYPE_FIFO;
  }

  /** A character device node; {@link #rdev()} names the device. */
  public boolean isCharacterDevice() {
    return proto.getType() == FileType.FILE_TYPE_CHARACTER_DEVICE;
  }

  /** A block device node; {@link #rdev()} names the device. */
  public boolean isBlockDevice() {
    return proto.getType() == FileType.FILE_TYPE_BLOCK_DEVICE;
  }

  /** A unix domain socket's name. */
  public boolean isSocket() {
    return proto.getType() == FileType.FILE_TYPE_SOCKET;
  }

  /**
   * A FIFO, device node or socket ({@link BraidClient#mknod}): only its inode exists in Braid, with
   * size 0 and no contents; {@link BraidClient#open} refuses it.
   */
  public boolean isSpecial() {
    return isFifo() || isCharacterDevice() || isBlockDevice() || isSocket();
  }

  /**
   * A device node's number as Linux encodes it in {@code st_rdev} (glibc's {@code makedev}); 0 for
   * every other type.
   */
  public long rdev() {
    return proto.getRdev();
  }

  /** Permission bits only (07777). */
  public int mode() {
    return proto.getMode();
  }

  public String user() {
    return proto.getUser();
  }

  public String group() {
    return proto.getGroup();
  }

  public int uid() {
    return proto.getUid();
  }

  public int gid() {
    return proto.getGid();
  }

  /**
   * Length in bytes: a file's committed length, a symlink's target length, 0 for a directory or a
   * special file.
   */
  public long size() {
    return proto.getSize();
  }

  /**
   * A regular file's bytes held in chunks, one replica's worth (what {@code du} counts): its
   * chunks' committed lengths summed, so a hole of whole chunks counts nothing; 0 for other types.
   */
  public long allocatedBytes() {
    return proto.getAllocatedBytes();
  }

  /** Last access, nanoseconds since the epoch. */
  public long atimeNanos() {
    return proto.getAtimeNs();
  }

  /** Last modification of the contents, nanoseconds since the epoch. */
  public long mtimeNanos() {
    return proto.getMtimeNs();
  }

  /** Last change of the inode, nanoseconds since the epoch. */
  public long ctimeNanos() {
    return proto.getCtimeNs();
  }

  public int nlink() {
    return proto.getNlink();
  }

  /** Bumped whenever existing data is invalidated (truncate, overwrite in place). */
  public long generation() {
    return proto.getGeneration();
  }

  /**
   * A regular file's layout.
   *
   * @throws IllegalStateException if this is not a regular file
   */
  public Layout layout() {
    if (!isFile()) {
      throw new IllegalStateException("inode " + inodeId() + " is not a regular file");
    }
    return toLayout(proto.getLayout());
  }

  /** A symlink's target exactly as stored; empty for other types. */
  public String symlinkTarget() {
    return proto.getSymlinkTarget();
  }

  /**
   * Hadoop's block size: the one asked at create ({@link CreateOptions#blockSize()}) if any, else
   * the file bytes covered by one chunk set; 0 if not a file.
   */
  public long blockSize() {
    return proto.getBlockSize();
  }

  static Layout toLayout(LayoutSpec s) {
    return Layout.of(s.getStripeUnit(), s.getStripeWidth(), s.getChunkSize(), s.getReplication());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FileAttributes a && a.proto.equals(proto);
  }

  @Override
  public int hashCode() {
    return proto.hashCode();
  }

  @Override
  public String toString() {
    return "FileAttributes{inode="
        + inodeId()
        + ", type="
        + type()
        + ", mode="
        + Integer.toOctalString(mode())
        + ", owner="
        + user()
        + ":"
        + group()
        + ", size="
        + size()
        + "}";
  }
}
