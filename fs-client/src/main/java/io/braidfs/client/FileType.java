package io.braidfs.client;

/**
 * The type of an inode, as {@link FileAttributes#type()} and {@link DirectoryEntry#type()} report
 * it and {@link BraidClient#mknod} takes it.
 *
 * <p>Thread-safety: immutable.
 */
public enum FileType {
  /** A regular file, whose bytes live in chunks on data servers. */
  REGULAR,
  /** A directory. */
  DIRECTORY,
  /**
   * A symbolic link; its target is stored in the inode ({@link FileAttributes#symlinkTarget()}).
   */
  SYMLINK,
  /** A named pipe (mkfifo): its bytes pass through the kernel of the machine that opens it. */
  FIFO,
  /** A character device node; {@link FileAttributes#rdev()} names the device. */
  CHARACTER_DEVICE,
  /** A block device node; {@link FileAttributes#rdev()} names the device. */
  BLOCK_DEVICE,
  /** A unix domain socket's name. */
  SOCKET,
  /**
   * A type this client does not know (one a newer MDS added) or none; {@link BraidClient#mknod}
   * refuses it.
   */
  UNKNOWN
}
