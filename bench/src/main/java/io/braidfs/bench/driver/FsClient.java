package io.braidfs.bench.driver;

import java.io.IOException;

/**
 * One system under test as the metadata and small-file experiments drive it: the same operations
 * through the API a system is reached by (java.nio on a directory or mount, Hadoop's FileSystem,
 * Braid's Java client), on paths relative to the system's benchmark root ("r1/c0/f12").
 *
 * <p>Thread-safety: implementations are safe for concurrent use by the experiment's clients.
 */
interface FsClient {
  /** The column heading: "Braid (FUSE)", "HDFS (Hadoop API)". */
  String name();

  /** Makes a directory and its missing parents (setup, not measured). */
  void mkdirs(String dir) throws IOException;

  /** Creates a new file (failing if it exists), writes {@code data} and closes it. */
  void create(String file, byte[] data) throws IOException;

  /** Opens an existing file for reading and closes it. */
  void open(String file) throws IOException;

  /** Reads a file's attributes. */
  void stat(String file) throws IOException;

  /** Deletes a file. */
  void delete(String file) throws IOException;

  /** Makes one directory (its parent exists). */
  void mkdir(String dir) throws IOException;

  /** Renames a file within its directory. */
  void rename(String from, String to) throws IOException;

  /** Deletes a directory tree (cleanup, not measured). */
  void deleteTree(String dir) throws IOException;
}
