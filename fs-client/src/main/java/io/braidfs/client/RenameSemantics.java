package io.braidfs.client;

/**
 * Which convention {@link BraidClient#rename(String, String, RenameSemantics, boolean, boolean)}
 * follows when the destination exists.
 *
 * <p>Thread-safety: immutable.
 */
public enum RenameSemantics {
  /**
   * rename(2): replaces an existing destination of a compatible type (a file by a file, an empty
   * directory by a directory); honours no-replace and exchange. Hadoop's FileContext rename.
   */
  POSIX,
  /**
   * Hadoop's FileSystem.rename: an existing destination directory receives the source as {@code
   * destination/<source name>}; an existing destination file is never replaced.
   */
  HADOOP
}
