package io.braidfs.bench.driver;

import java.io.Closeable;
import java.io.IOException;

/**
 * One system the data experiments (3, 4 and 5) write files to and read them back from, behind the
 * few calls an application makes, so that {@link Transfers} runs the same loops on each.
 *
 * <p>A third system is one small class. HDFS, for instance, with a Hadoop {@code FileSystem fs}:
 * {@code create} returns {@code fs.create(new Path(dir, file))} wrapped as a {@link Sink} whose
 * {@code sync} is {@code hsync()}, {@code open} wraps {@code fs.open(...)}, and {@code delete} is
 * {@code fs.delete(path, false)}.
 *
 * <p>Thread-safety: implementations are thread-safe (the scaling experiment writes one file per
 * thread); a {@link Sink} or {@link Source} is used by one thread.
 */
interface Target {
  /** The column the system's samples go to: "Braid", "local disk". */
  String system();

  /** Creates {@code file} (a plain name, no directories) to write from its start. */
  Sink create(String file) throws IOException;

  /** Opens {@code file} to read from its start. */
  Source open(String file) throws IOException;

  /** Removes {@code file}. */
  void delete(String file) throws IOException;

  /** A file being written; {@link #close()} makes it durable, as the system does by default. */
  interface Sink extends Closeable {
    void write(byte[] b, int off, int len) throws IOException;

    /** Forces what was written so far to disk (hsync; fdatasync). */
    void sync() throws IOException;
  }

  /** A file being read sequentially. */
  interface Source extends Closeable {
    /** Reads up to {@code len} bytes; the number read, or -1 at the end of the file. */
    int read(byte[] b, int off, int len) throws IOException;
  }
}
