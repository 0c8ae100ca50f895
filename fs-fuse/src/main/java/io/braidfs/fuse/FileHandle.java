package io.braidfs.fuse;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * One open(2) of a file, {@code fi->fh} in {@link OpenFileTable}: the caller's client, how the file
 * was opened, the inode's shared {@link OpenFile}, and the handle's own read stream, opened at
 * open(2) for a read-only handle (close-to-open: open asks the MDS) and at the first read for one
 * open for writing too.
 *
 * <p>Thread-safety: thread-safe; {@link #lock} guards the read stream and the change count it last
 * saw, and is never held while taking the {@link OpenFile}'s.
 */
final class FileHandle {
  final BraidClient client;
  final OpenFile file;
  final boolean writable;
  final boolean append;

  private final Object lock = new Object();

  @GuardedBy("lock")
  private @Nullable BraidInputStream in;

  /** The file's change count ({@link OpenFile#publishForRead}) the stream last saw. */
  @GuardedBy("lock")
  private long inChanges;

  /**
   * @param in the read stream, or null to open it at the first read
   * @param inChanges the file's change count {@code in} has seen
   */
  FileHandle(
      BraidClient client,
      OpenFile file,
      boolean writable,
      boolean append,
      @Nullable BraidInputStream in,
      long inChanges) {
    this.client = client;
    this.file = file;
    this.writable = writable;
    this.append = append;
    this.in = in;
    this.inChanges = inChanges;
  }

  /**
   * The handle's read stream, opened at {@code path} if it has none or {@code reopen}; one that saw
   * fewer than {@code changes} of the file forgets what it cached first.
   */
  BraidInputStream input(String path, long changes, boolean reopen) throws IOException {
    synchronized (lock) {
      BraidInputStream s = in;
      if (s == null || reopen) {
        if (s != null) {
          s.close();
        }
        in = null;
        s = client.open(path);
        in = s;
      } else if (inChanges != changes) {
        s.invalidate();
      }
      inChanges = changes;
      return s;
    }
  }

  /** Closes the read stream, if any (release). */
  void closeInput() {
    synchronized (lock) {
      BraidInputStream s = in;
      if (s != null) {
        s.close();
        in = null;
      }
    }
  }
}
