package io.braidfs.fuse;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.FileAttributes;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * The data operations of {@link BraidFuse}: create, open, read, write, flush (close(2)), fsync and
 * release, over the handles and shared inode state of {@link OpenFileTable}. A read on an inode
 * with unpublished writes hflushes them first, and a read stream that missed a change of the inode
 * through this mount forgets what it cached; close(2) commits the writer of the last writing
 * handle, so a file closed here is complete for other clients; fsync(2) is hsync.
 *
 * <p>Each operation throws what the client throws; {@link BraidFuse} makes it an errno.
 *
 * <p>Thread-safety: thread-safe; it keeps no state of its own.
 */
final class DataOperations {
  private static final int O_ACCMODE = 03;
  private static final int O_WRONLY = 01;
  private static final int O_RDWR = 02;
  private static final int O_TRUNC = 01000;
  private static final int O_APPEND = 02000;

  private final Caller caller;
  private final OpenFileTable files;

  DataOperations(Caller caller, OpenFileTable files) {
    this.caller = caller;
    this.files = files;
  }

  int create(String path, long mode, FuseFileInfo fi) throws IOException {
    BraidClient c = caller.client();
    BraidOutputStream out = c.create(path, NamespaceOperations.createOptions(mode));
    int flags = fi.flags.get();
    fi.fh.set(files.create(c, path, out, (flags & O_APPEND) != 0));
    FileAttributes created = out.createdAttributes();
    return created != null ? caller.changed(path, created) : 0;
  }

  /**
   * open(2). For reading, the stream is opened now (close-to-open: the open asks the MDS); for
   * writing, the writer comes with the first write, and O_TRUNC truncates now.
   */
  int open(String path, FuseFileInfo fi) throws IOException {
    int flags = fi.flags.get();
    int acc = flags & O_ACCMODE;
    boolean writable = acc == O_WRONLY || acc == O_RDWR;
    boolean append = (flags & O_APPEND) != 0;
    BraidClient c = caller.client();
    if (writable) {
      FileAttributes a = c.lstat(path);
      if (a.isDirectory()) {
        return -FuseErrors.EISDIR;
      }
      fi.fh.set(files.openForWriting(c, path, a.inodeId(), (flags & O_TRUNC) != 0, append));
    } else {
      BraidInputStream in = c.open(path); // asks the MDS: close-to-open
      fi.fh.set(files.openForReading(c, in, append));
    }
    return 0;
  }

  /** Reads into {@code dst} from {@code offset}; a stale read stream is reopened once. */
  int read(FileHandle h, String path, long offset, ByteBuffer dst) throws IOException {
    long changes = h.file.publishForRead();
    try {
      return readFully(h.input(path, changes, false), offset, dst);
    } catch (IOException e) {
      // A stale read stream (truncated, overwritten in place, token outdated): reopen once.
      Status s = StatusExceptions.statusOf(e);
      if (s == Status.NOT_FOUND || s == Status.PERMISSION_DENIED) {
        throw e;
      }
      dst.clear();
      return readFully(h.input(path, changes, true), offset, dst);
    }
  }

  /**
   * Fills {@code dst} from {@code offset}. Inside the known length the read goes through the
   * stream's position, so that sequential reads (the kernel's, 128 KiB each, possibly out of order)
   * ride its read-ahead window instead of one round trip each; past it, a positional read asks
   * whether a writer has added more.
   */
  private static int readFully(BraidInputStream in, long offset, ByteBuffer dst)
      throws IOException {
    int total = 0;
    synchronized (in) {
      if (offset < in.length()) {
        in.seek(offset);
        while (dst.hasRemaining()) {
          int n = in.read(dst);
          if (n < 0) {
            break;
          }
          total += n;
        }
        return total;
      }
    }
    while (dst.hasRemaining()) {
      int n = in.read(offset + total, dst);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }

  /** Writes {@code src} through {@code h}, a writing handle: the whole of it, or fails. */
  int write(FileHandle h, String path, long offset, ByteBuffer src) throws IOException {
    int size = src.remaining();
    files.write(h, path, offset, src);
    return size;
  }

  /** close(2) of {@code h}, a writing handle. */
  int flush(FileHandle h, String path) throws IOException {
    files.flush(h, path);
    return 0;
  }

  int fsync(FileHandle h, String path) throws IOException {
    if (h.file.sync()) {
      return 0;
    }
    if (!h.client.options().data().syncOnClose()) {
      h.client.sync(path); // closed without syncing (POSIX close): force it now
    }
    return 0;
  }

  int release(String path, long fh) throws IOException {
    files.release(fh, path);
    return 0;
  }
}
